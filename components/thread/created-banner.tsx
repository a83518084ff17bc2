import { ForgetDraft } from "@/components/forms/drafts";
import { CopyButton } from "@/components/ui/copy-button";
import { NEW_HANDOFF_DRAFT } from "@/components/handoffs/new-handoff-draft";

/**
 * Shown once after creating: the ID is what the operator pastes into the other client, and how
 * many secrets were redacted from the title and first entry (the thread shows where).
 */
export function CreatedBanner({ handoffId, redacted = 0 }: { handoffId: string; redacted?: number }) {
  return (
    <div role="status" className="mb-4 flex flex-wrap items-center gap-3 rounded-lg border border-emerald-200 bg-emerald-50 p-4 text-sm text-emerald-900">
      <p>
        Handoff created. Paste <code className="font-mono font-semibold">{handoffId}</code> into the other client to pick up
        the thread.
      </p>
      <CopyButton text={handoffId} label="Copy ID" />
      {/* The form's draft became this handoff. */}
      <ForgetDraft name={NEW_HANDOFF_DRAFT.title} />
      <ForgetDraft name={NEW_HANDOFF_DRAFT.content} />
      {redacted > 0 && (
        <p data-testid="created-redaction-notice" className="w-full rounded-md border border-amber-300 bg-amber-50 p-2 text-amber-900">
          {redacted === 1 ? "1 secret was" : `${redacted} secrets were`} redacted before storing: look for [redacted: …] in the title and
          first entry.
        </p>
      )}
    </div>
  );
}
