"use client";

import { forgetDraft, useDraft } from "@/components/forms/drafts";
import { buttonClass } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { inputClass } from "@/components/ui/field";
import { replyDraftKey } from "./composer";

/** Enough rows to read a short reply whole; a long one scrolls inside the box. */
const rowsFor = (text: string) => Math.min(10, Math.max(3, text.split("\n").length));

/**
 * A reply still unposted when the thread closed (here, in another tab or from the CLI): the
 * composer is gone, but nothing typed is lost, so the text stays readable, to copy or to
 * discard. When the thread can be continued, the new thread offers to take it (CarriedDraft).
 */
export function KeptDraft({ handoffId, canContinue }: { handoffId: string; canContinue: boolean }) {
  const key = replyDraftKey(handoffId);
  const [text] = useDraft(key);
  if (!text) return null;
  return (
    <section data-testid="kept-draft" aria-labelledby="kept-draft-heading" className="mb-4 flex flex-col gap-2 rounded-lg border border-amber-300 bg-amber-50 p-4 text-sm text-amber-950">
      <h2 id="kept-draft-heading" className="font-semibold">
        Your unposted reply is kept
      </h2>
      <p id="kept-draft-hint">
        The thread closed before it was posted. It stays in this browser until you discard it
        {canContinue ? "; continue the work in a new thread below and that thread offers to take it." : "."}
      </p>
      <textarea readOnly value={text} rows={rowsFor(text)} aria-labelledby="kept-draft-heading" aria-describedby="kept-draft-hint" className={`${inputClass} font-mono`} />
      <div className="flex flex-wrap gap-2">
        <CopyButton text={text} label="Copy reply" />
        <button type="button" onClick={() => forgetDraft(key)} className={buttonClass("ghost")}>
          Discard reply
        </button>
      </div>
    </section>
  );
}

/**
 * On a thread that continues a closed one: the reply left unposted there, offered for this
 * thread's composer (added after what is already written here).
 */
export function CarriedDraft({ handoffId, continuesFrom }: { handoffId: string; continuesFrom: string }) {
  const fromKey = replyDraftKey(continuesFrom);
  const [carried] = useDraft(fromKey);
  const [current, setCurrent] = useDraft(replyDraftKey(handoffId));
  if (!carried) return null;
  const takeIt = () => {
    setCurrent(current ? `${current}\n\n${carried}` : carried);
    forgetDraft(fromKey);
    document.getElementById("entry-content")?.focus();
  };
  return (
    <section data-testid="carried-draft" aria-labelledby="carried-draft-heading" className="mt-6 flex flex-col gap-2 rounded-lg border border-amber-300 bg-amber-50 p-4 text-sm text-amber-950">
      <h2 id="carried-draft-heading" className="font-semibold">
        A reply unposted in the thread this continues
      </h2>
      <pre className="max-h-40 overflow-auto font-mono text-xs whitespace-pre-wrap wrap-anywhere">{carried}</pre>
      <div className="flex flex-wrap gap-2">
        <button type="button" onClick={takeIt} className={buttonClass("primary")}>
          Use it in this reply
        </button>
        <button type="button" onClick={() => forgetDraft(fromKey)} className={buttonClass("ghost")}>
          Discard it
        </button>
      </div>
    </section>
  );
}
