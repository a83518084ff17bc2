import { SourceBadge, StatusBadge } from "@/components/handoffs/handoff-badges";
import { CopyButton } from "@/components/ui/copy-button";
import { RelativeTime } from "@/components/ui/relative-time";
import type { HandoffView } from "@/lib/handoffs/views";

export function ThreadHeader({ handoff, sourceFormat }: { handoff: HandoffView; sourceFormat?: string | null }) {
  return (
    <header className="mb-4">
      <div className="flex flex-wrap items-center gap-2">
        <StatusBadge status={handoff.status} />
        <SourceBadge format={sourceFormat ?? null} />
        {handoff.project && <span className="text-sm text-slate-600">project {handoff.project}</span>}
      </div>
      <h1 className="mt-2 text-2xl font-bold tracking-tight text-slate-900 break-words">{handoff.title}</h1>
      <div className="mt-2 flex flex-wrap items-center gap-2 text-sm">
        <code data-testid="handoff-id" className="rounded bg-slate-100 px-2 py-1 font-mono text-slate-800 break-all">
          {handoff.id}
        </code>
        <CopyButton text={handoff.id} label="Copy ID" />
        <span className="text-slate-600">
          started <RelativeTime iso={handoff.createdAt} /> · last activity <RelativeTime iso={handoff.updatedAt} />
        </span>
      </div>
    </header>
  );
}
