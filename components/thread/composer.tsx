"use client";

import { useActionState, useEffect, useRef, useState, type KeyboardEvent } from "react";
import { addEntryAction } from "@/app/handoffs/actions";
import { forgetDraft, keepingUnsent, useDraft } from "@/components/forms/drafts";
import { buttonClass } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { Markdown } from "@/components/ui/markdown";
import { idleFormState, type FormState } from "@/lib/form-state";
import { ANSWERING_TYPE, ENTRY_TYPES, type ClientSide } from "@/lib/handoffs/schemas";
import { useRefreshAfterSuccess } from "./use-refresh-thread";

/** Ctrl+Enter (⌘+Enter on a Mac) posts from the text box, as in chat and issue trackers. */
function postOnModEnter(event: KeyboardEvent<HTMLTextAreaElement>) {
  if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey) || event.nativeEvent.isComposing) return;
  event.preventDefault();
  event.currentTarget.form?.requestSubmit();
}

/** The window event an entry's Reply (or `r` on it) sends the composer: the question's number. */
export const REPLY_EVENT = "baton:reply";
export type ReplyDetail = { number: number };

/** Asks the composer on this page to answer question #`number`. */
export function replyTo(number: number): void {
  window.dispatchEvent(new CustomEvent<ReplyDetail>(REPLY_EVENT, { detail: { number } }));
}

/** The draft of a thread's reply (components/forms/drafts.ts); kept past the thread's closing (KeptDraft). */
export const replyDraftKey = (handoffId: string) => `reply.${handoffId}`;

/**
 * Post an entry as either side, with a preview of its Markdown as the thread will show it. Field
 * errors show beside their fields; success clears the text. The text is this thread's draft
 * until it is posted; a post the server never answered keeps it, with Retry.
 */
export function Composer({ handoffId, viewingAs }: { handoffId: string; viewingAs: ClientSide }) {
  const draft = replyDraftKey(handoffId);
  const [state, formAction, pending] = useActionState(
    keepingUnsent(addEntryAction, () => forgetDraft(draft)),
    idleFormState,
  );
  useRefreshAfterSuccess(state, handoffId);
  // A new form after each success: the text empties and the preview closes.
  return <ComposerForm key={state.successAt ?? "composer"} handoffId={handoffId} draft={draft} viewingAs={viewingAs} state={state} formAction={formAction} pending={pending} />;
}

type FormProps = { handoffId: string; draft: string; viewingAs: ClientSide; state: FormState; formAction: (formData: FormData) => void; pending: boolean };

function ComposerForm({ handoffId, draft, viewingAs, state, formAction, pending }: FormProps) {
  const errors = state.fieldErrors ?? {};
  const values = state.values ?? {};
  const [text, setText] = useDraft(draft);
  const [previewing, setPreviewing] = useState(false);
  const [answers, setAnswers] = useState<number | null>(values.answers ? Number(values.answers) : null);
  const [type, setType] = useState(values.type ?? "progress");
  const textBox = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    const onReply = (event: Event) => {
      const { number } = (event as CustomEvent<ReplyDetail>).detail;
      setAnswers(number);
      setType(ANSWERING_TYPE);
      setPreviewing(false);
      textBox.current?.scrollIntoView({ block: "center" });
      textBox.current?.focus();
    };
    window.addEventListener(REPLY_EVENT, onReply);
    return () => window.removeEventListener(REPLY_EVENT, onReply);
  }, []);
  return (
    <form
      action={formAction}
      aria-labelledby="composer-heading"
      className="mt-6 flex flex-col gap-3 rounded-lg border border-slate-200 bg-white p-4 shadow-sm"
      noValidate
    >
      <h2 id="composer-heading" className="text-base font-semibold text-slate-900">
        {answers === null ? "Add an entry" : `Reply to #${answers}`}
      </h2>
      <input type="hidden" name="id" value={handoffId} />
      {answers !== null && (
        <p data-testid="replying-to" className="flex flex-wrap items-center gap-2 text-sm text-slate-700">
          <input type="hidden" name="answers" value={answers} />
          Answers question{" "}
          <a href={`#entry-${answers}`} className="font-mono text-indigo-700 underline">
            #{answers}
          </a>
          <button type="button" onClick={() => setAnswers(null)} className="text-xs font-medium text-slate-600 underline">
            Not a reply
          </button>
          <span className="text-red-700">{errors.answers?.join(" ")}</span>
        </p>
      )}
      <div className="flex flex-col gap-3 sm:flex-row">
        <div className="flex flex-col gap-1">
          <label htmlFor="entry-type" className="text-sm font-medium text-slate-800">
            Type
          </label>
          <select id="entry-type" name="type" value={type} onChange={(event) => setType(event.target.value)} className={`${inputClass} sm:w-40`}>
            {ENTRY_TYPES.map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
          </select>
          <div aria-live="polite" className="text-sm text-red-700">
            {errors.type?.map((error) => <p key={error}>{error}</p>)}
          </div>
        </div>
        <fieldset className="flex flex-col gap-1">
          <legend className="text-sm font-medium text-slate-800">Post as</legend>
          <div className="flex gap-4 py-2 text-sm">
            {(["chat", "code"] as const).map((side) => (
              <label key={side} className="flex items-center gap-2">
                <input type="radio" name="asClient" value={side} defaultChecked={(values.asClient ?? viewingAs) === side} />
                {side}
              </label>
            ))}
          </div>
        </fieldset>
      </div>
      <div className="flex flex-col gap-1">
        <div className="flex flex-wrap items-end justify-between gap-2">
          <label htmlFor="entry-content" className="text-sm font-medium text-slate-800">
            Content
          </label>
          <div role="group" aria-label="Write or preview" className="inline-flex rounded-md border border-slate-300 p-0.5 text-xs">
            {[false, true].map((preview) => (
              <button
                key={String(preview)}
                type="button"
                aria-pressed={previewing === preview}
                onClick={() => setPreviewing(preview)}
                className={`rounded px-2 py-0.5 font-medium ${previewing === preview ? "bg-slate-200 text-slate-900" : "text-slate-700 hover:bg-slate-100"}`}
              >
                {preview ? "Preview" : "Write"}
              </button>
            ))}
          </div>
        </div>
        {/* The text box stays in the form while previewing (hidden), so what is posted is what was written. */}
        <textarea
          ref={textBox}
          id="entry-content"
          name="content"
          rows={4}
          value={text}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={postOnModEnter}
          hidden={previewing}
          aria-invalid={errors.content ? true : undefined}
          aria-describedby="entry-content-hint entry-content-error"
          placeholder="Markdown works. Up to 64 KiB."
          className={`${inputClass} font-mono`}
        />
        {previewing && (
          <div data-testid="entry-preview" className="min-h-24 rounded-md border border-dashed border-slate-300 p-3">
            {text.trim() ? <Markdown>{text}</Markdown> : <p className="text-sm text-slate-600">Nothing to preview yet.</p>}
          </div>
        )}
        <p id="entry-content-hint" className="text-xs text-slate-600">
          Ctrl+Enter (⌘+Enter on a Mac) posts.
        </p>
        <div id="entry-content-error" aria-live="polite" className="text-sm text-red-700">
          {errors.content?.map((error) => <p key={error}>{error}</p>)}
        </div>
      </div>
      <div className="flex flex-wrap items-center gap-3">
        <button type="submit" disabled={pending} className={buttonClass("primary")}>
          {pending ? "Posting…" : state.unsent ? "Retry" : "Post entry"}
        </button>
        <p aria-live="polite" data-testid={state.unsent ? "not-sent" : undefined} className={`text-sm ${state.status === "error" ? "text-red-700" : "text-emerald-800"}`}>
          {state.message}
        </p>
      </div>
      {state.notices && state.notices.length > 0 && (
        <div role="status" data-testid="redaction-notice" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
          <p className="font-medium">Secrets were redacted before the entry was stored:</p>
          <ul className="mt-1 list-disc pl-5">
            {state.notices.map((notice) => (
              <li key={notice}>{notice}</li>
            ))}
          </ul>
        </div>
      )}
    </form>
  );
}
