import { CopyButton } from "@/components/ui/copy-button";

/** Shown once after creating: the ID is what the operator pastes into the other client. */
export function CreatedBanner({ handoffId }: { handoffId: string }) {
  return (
    <div role="status" className="mb-4 flex flex-wrap items-center gap-3 rounded-lg border border-emerald-200 bg-emerald-50 p-4 text-sm text-emerald-900">
      <p>
        Handoff created. Paste <code className="font-mono font-semibold">{handoffId}</code> into the other client to pick up
        the thread.
      </p>
      <CopyButton text={handoffId} label="Copy ID" />
    </div>
  );
}
