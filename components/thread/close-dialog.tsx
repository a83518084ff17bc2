"use client";

import { useActionState } from "react";
import { closeHandoffAction } from "@/app/handoffs/actions";
import { buttonClass } from "@/components/ui/button";
import { useModalDialog } from "@/components/ui/use-modal-dialog";
import { idleFormState, withoutPreviousState } from "@/lib/form-state";
import { visibleBidiControls } from "@/lib/validation";
import { useRefreshAfterSuccess } from "./use-refresh-thread";

/** Close asks first, naming the thread and saying plainly that its entries will be deleted. */
export function CloseDialog({ handoffId, title, entryCount }: { handoffId: string; title: string; entryCount: number }) {
  const modal = useModalDialog();
  const [state, formAction, pending] = useActionState(withoutPreviousState(closeHandoffAction), idleFormState);
  useRefreshAfterSuccess(state, handoffId);
  return (
    <>
      {/* Not the thread's loudest action: the dialog's own button is the one that deletes. */}
      <button type="button" {...modal.openProps} className={buttonClass("secondary")}>
        Close handoff…
      </button>
      <dialog
        {...modal.dialogProps}
        aria-labelledby="close-heading"
        className="m-auto w-[min(28rem,calc(100vw-2rem))] rounded-lg border border-slate-200 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-slate-900/40"
      >
        <form action={formAction} className="flex flex-col gap-3 p-5">
          <input type="hidden" name="id" value={handoffId} />
          <h2 id="close-heading" className="text-lg font-semibold text-slate-900">
            Close this handoff?
          </h2>
          <p data-testid="close-target" className="text-sm break-words text-slate-900">
            <span className="font-medium">{visibleBidiControls(title)}</span> <span className="font-mono text-xs text-slate-600">{handoffId}</span>
          </p>
          <p className="text-sm text-slate-700">
            {entryCount === 1 ? "Its 1 entry" : `All ${entryCount} entries`} will be permanently deleted. The handoff stays in the
            history as completed, and nothing more can be added to it.
          </p>
          <label className="flex items-start gap-2 text-sm text-slate-800">
            <input type="checkbox" name="keepBundle" defaultChecked className="mt-1" />
            <span>Keep a context bundle: the whole thread is summarised into a stored bundle, linked from the completed handoff.</span>
          </label>
          <div aria-live="polite" className="text-sm text-red-700">
            {state.status === "error" && state.message}
          </div>
          <div className="flex justify-end gap-2">
            <button type="button" {...modal.closeProps} className={buttonClass("secondary")}>
              Cancel
            </button>
            <button type="submit" disabled={pending} className={buttonClass("danger")}>
              {pending ? "Closing…" : "Close and delete entries"}
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}
