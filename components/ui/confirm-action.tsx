"use client";

import { useActionState, useId, type ReactNode } from "react";
import { idleFormState, withoutPreviousState, type FormState } from "@/lib/form-state";
import { buttonClass } from "./button";
import { useModalDialog } from "./use-modal-dialog";

/** A small confirming dialog, centred over a dimmed page: ConfirmAction's, and any other question a page asks first. */
export const CONFIRM_DIALOG_CLASS = "m-auto w-[min(28rem,calc(100vw-2rem))] rounded-lg border border-slate-200 bg-white p-0 text-left text-slate-900 shadow-xl backdrop:bg-slate-900/40";

/** The button that asks (its `data-confirm-action`): a list hands focus to the next row's when a row leaves (useFocusOutlivesRows). */
export const CONFIRM_ACTION_BUTTON = "[data-confirm-action]";

type Props = {
  /** The server action to run once confirmed. */
  action: (previous: FormState, formData: FormData) => Promise<FormState>;
  /** Its form fields (what to act on). */
  fields: Record<string, string | number>;
  /** The button that asks, and its accessible name (e.g. "Revoke laptop"). */
  label: string;
  describe: string;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busyLabel: string;
};

/**
 * A destructive action that asks first: the button opens a dialog saying what will happen, and
 * only its confirm button runs the action. A native modal dialog, so it opens before hydration.
 */
export function ConfirmAction({ action, fields, label, describe, title, children, confirmLabel, busyLabel }: Props) {
  const modal = useModalDialog();
  const headingId = useId();
  const [state, formAction, pending] = useActionState(withoutPreviousState(action), idleFormState);
  return (
    <>
      <button type="button" {...modal.openProps} aria-label={describe} className={buttonClass("danger")} data-confirm-action="">
        {label}
      </button>
      <dialog
        {...modal.dialogProps}
        aria-labelledby={headingId}
        className={CONFIRM_DIALOG_CLASS}
      >
        <form action={formAction} className="flex flex-col gap-3 p-5">
          {Object.entries(fields).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          <h2 id={headingId} className="text-lg font-semibold text-slate-900 break-words">
            {title}
          </h2>
          <div className="text-sm text-slate-700 break-words">{children}</div>
          <p aria-live="polite" className="text-sm text-red-700">
            {state.status === "error" && state.message}
          </p>
          <div className="flex flex-wrap justify-end gap-2">
            <button type="button" {...modal.closeProps} className={buttonClass("secondary")}>
              Cancel
            </button>
            <button type="submit" disabled={pending} className={buttonClass("danger")}>
              {pending ? busyLabel : confirmLabel}
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}
