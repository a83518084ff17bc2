"use client";

import { useActionState, useEffect, useRef, useState } from "react";
import { endShiftAction } from "@/app/agents/actions";
import { keepingUnsent, useDraft } from "@/components/forms/drafts";
import { buttonClass } from "@/components/ui/button";
import { useModalDialog } from "@/components/ui/use-modal-dialog";
import { Field, inputClass } from "@/components/ui/field";
import { MAX_SHIFT_DOCUMENT_BYTES } from "@/lib/agents/schemas";
import { formValues, idleFormState, type FormState } from "@/lib/form-state";
import { visibleBidiControls } from "@/lib/validation";
import { shiftDocumentDraft } from "./shift-draft";

type Props = {
  agentId: number;
  /** The agent's name: its short id alone may be another agent's too (callers choose session ids). */
  name: string;
  shortId: string;
  template: string;
  tmuxTarget: string | null;
  /** The agent's project's newest checkpoint, offered as the document's start. */
  checkpoint: { handoffId: string; title: string; savedAt: string; document: string } | null;
};

const sendEndShift = keepingUnsent(endShiftAction);
const encoder = new TextEncoder();

/**
 * A document over MAX_SHIFT_DOCUMENT_BYTES of UTF-8 is refused here, before it is sent: the server
 * would refuse it too, and one over the page's 1 MiB body limit never reaches the action (the
 * guard answers 413, which the form could only report as no answer). Measured on the text area's
 * value, whose line breaks are LF as the server counts them.
 */
function tooLarge(formData: FormData): FormState | null {
  const document = formData.get("document");
  const bytes = typeof document === "string" ? encoder.encode(document).length : 0;
  if (bytes <= MAX_SHIFT_DOCUMENT_BYTES) return null;
  const size = bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
  return {
    status: "error",
    message: `The document is too large: ${size} of UTF-8; a shift document is at most ${MAX_SHIFT_DOCUMENT_BYTES / 1024} KiB. Nothing was sent; shorten it (or link to longer notes) and send again.`,
    values: formValues(formData),
  };
}

/** keepingUnsent sends the action no previous state: a refused state holds the whole document again. */
async function endShift(previous: FormState, formData: FormData): Promise<FormState> {
  return tooLarge(formData) ?? sendEndShift(previous, formData);
}

/**
 * "End shift": the operator writes the shift document and the successor starts. The
 * successor's tmux target starts empty, with this agent's known pane offered in one click (for a
 * successor started in the same pane once this one exits): typed there while the leaving agent
 * still runs, the prompt would go to it. The project's last checkpoint, when there is one, fills the
 * document in one click. Sections of the template left empty are dropped on save. What is typed is
 * this agent's draft in the browser until the agent has ended, across reloads and navigation.
 */
export function EndShiftDialog({ agentId, name, shortId, template, tmuxTarget, checkpoint }: Props) {
  const modal = useModalDialog();
  const [state, formAction, pending] = useActionState(endShift, idleFormState);
  const errors = state.fieldErrors ?? {};
  const values = state.values ?? {};
  const otherErrors = Object.entries(errors).filter(([field]) => field !== "document" && field !== "tmuxTarget");
  const [target, setTarget] = useState(values.tmuxTarget ?? "");
  const documentRef = useRef<HTMLTextAreaElement>(null);
  const [draft, setDraft] = useDraft(shiftDocumentDraft(agentId));
  const initialDocument = values.document ?? template;
  // The draft arrives after hydration (the server renders the template): it fills a document not yet typed in.
  useEffect(() => {
    if (draft && documentRef.current && documentRef.current.value === initialDocument) documentRef.current.value = draft;
  }, [draft, initialDocument]);
  return (
    <>
      <button type="button" {...modal.openProps} className={buttonClass("primary")}>
        End shift…
      </button>
      <dialog
        {...modal.dialogProps}
        aria-labelledby="end-shift-heading"
        className="m-auto max-h-[calc(100vh-2rem)] w-[min(44rem,calc(100vw-2rem))] rounded-lg border border-slate-200 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-slate-900/40"
      >
        <form action={formAction} noValidate className="flex flex-col gap-4 p-4 sm:p-5">
          <input type="hidden" name="agentId" value={agentId} />
          <div>
            <h2 id="end-shift-heading" className="text-lg font-semibold text-slate-900">
              End the shift of agent {shortId}
            </h2>
            <p data-testid="end-shift-target" className="mt-1 text-sm break-words text-slate-900">
              <span className="font-medium">{visibleBidiControls(name)}</span> <span className="font-mono text-xs text-slate-600">{shortId}</span>
            </p>
            <p className="mt-1 text-sm text-slate-700">
              The document is saved under the data folder, a successor agent starts (same persona and project) and is told where to
              read it. This agent ends.
            </p>
          </div>
          <div role="alert" aria-live="assertive" className="text-sm text-red-700">
            {state.status === "error" && state.message && <p>{state.message}</p>}
            {otherErrors.map(([field, messages]) => (
              <p key={field}>{messages.join(" ")}</p>
            ))}
          </div>
          <Field id="document" label="Shift document" errors={errors.document} hint="Markdown, written for the successor. Fill in at least one section; the ones left empty are not saved.">
            <textarea
              id="document"
              name="document"
              ref={documentRef}
              rows={14}
              defaultValue={initialDocument}
              onInput={(event) => setDraft(event.currentTarget.value)}
              aria-invalid={errors.document ? true : undefined}
              aria-describedby="document-hint document-error"
              className={`${inputClass} font-mono`}
            />
            {checkpoint && (
              <button
                type="button"
                onClick={() => {
                  if (documentRef.current) documentRef.current.value = checkpoint.document;
                  setDraft(checkpoint.document);
                  documentRef.current?.focus();
                }}
                className="self-start text-left text-sm font-medium text-indigo-700 underline"
              >
                Start from the last checkpoint ({checkpoint.title}, saved {checkpoint.savedAt.slice(0, 16).replace("T", " ")})
              </button>
            )}
          </Field>
          <Field
            id="tmuxTarget"
            label="Successor's tmux target (optional)"
            errors={errors.tmuxTarget}
            hint={`Where the successor runs, e.g. work:3.0: its own pane${tmuxTarget ? `, not this agent's (${tmuxTarget})` : ""}. The prompt is typed there; leave blank to paste it yourself.`}
          >
            <input
              id="tmuxTarget"
              name="tmuxTarget"
              value={target}
              onChange={(event) => setTarget(event.target.value)}
              maxLength={140}
              autoComplete="off"
              spellCheck={false}
              aria-invalid={errors.tmuxTarget ? true : undefined}
              aria-describedby="tmuxTarget-hint tmuxTarget-error"
              className={`${inputClass} font-mono sm:w-72`}
            />
            {tmuxTarget && target !== tmuxTarget && (
              <button type="button" onClick={() => setTarget(tmuxTarget)} className="self-start text-sm font-medium text-indigo-700 underline">
                Use this agent&apos;s pane ({tmuxTarget})
              </button>
            )}
          </Field>
          <div className="flex flex-wrap justify-end gap-2">
            <button type="button" {...modal.closeProps} className={buttonClass("secondary")}>
              Cancel
            </button>
            <button type="submit" disabled={pending} className={buttonClass("primary")}>
              {pending ? "Handing off…" : "End shift and hand off"}
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}
