import type { ReactNode } from "react";
import { SourceBadge, StatusBadge } from "@/components/handoffs/handoff-badges";
import { CopyButton } from "@/components/ui/copy-button";
import { RelativeTime } from "@/components/ui/relative-time";
import type { HandoffView } from "@/lib/handoffs/views";
import { visibleBidiControls } from "@/lib/validation";

/** Title and status first; the ID to paste into the other client; the source and export menu (`menu`) to the side, or under the title on a phone. */
export function ThreadHeader({ handoff, sourceFormat, menu }: { handoff: HandoffView; sourceFormat?: string | null; menu?: ReactNode }) {
  return (
    <header className="mb-4 flex flex-col gap-2">
      {/* On a phone the title has the whole width; the menu goes under it. */}
      <div className="flex flex-col items-start gap-3 sm:flex-row sm:justify-between">
        <h1 className="min-w-0 flex-1 text-2xl font-bold tracking-tight text-slate-900 wrap-anywhere">{visibleBidiControls(handoff.title)}</h1>
        {menu}
      </div>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2 text-sm">
        <StatusBadge status={handoff.status} />
        <SourceBadge format={sourceFormat ?? null} />
        {handoff.project && <span className="min-w-0 text-slate-600 wrap-anywhere">project {handoff.project}</span>}
        <span className="flex min-w-0 items-center gap-2">
          <code data-testid="handoff-id" className="rounded bg-slate-100 px-2 py-1 font-mono text-slate-800 break-all">
            {handoff.id}
          </code>
          <CopyButton text={handoff.id} label="Copy ID" />
        </span>
        <span className="text-slate-600">
          started <RelativeTime iso={handoff.createdAt} /> · last activity <RelativeTime iso={handoff.updatedAt} />
        </span>
      </div>
    </header>
  );
}
