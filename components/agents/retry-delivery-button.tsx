"use client";

import { useActionState, useId } from "react";
import { retryDeliveryAction } from "@/app/agents/actions";
import { keepingUnsent } from "@/components/forms/drafts";
import { buttonClass } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { idleFormState } from "@/lib/form-state";

/**
 * *Retry delivery*: types the injection prompt into the successor's tmux pane again, the pane in
 * the box: the successor's known one, or another the operator names (it becomes the
 * successor's target).
 */
export function RetryDeliveryButton({ agentId, target }: { agentId: number; target: string | null }) {
  const [state, formAction, pending] = useActionState(keepingUnsent(retryDeliveryAction), idleFormState);
  const id = useId();
  const error = state.fieldErrors?.tmuxTarget?.join(" ") ?? state.message;
  return (
    <form action={formAction} className="flex flex-wrap items-end gap-2">
      <input type="hidden" name="agentId" value={agentId} />
      <div className="flex min-w-0 flex-col gap-1">
        <label htmlFor={`${id}-target`} className="text-xs font-medium text-slate-700">
          Pane (tmux target)
        </label>
        <input
          id={`${id}-target`}
          name="tmuxTarget"
          defaultValue={state.values?.tmuxTarget ?? target ?? ""}
          placeholder="session:window.pane"
          autoComplete="off"
          spellCheck={false}
          className={`${inputClass} w-48 font-mono`}
        />
      </div>
      <button type="submit" disabled={pending} className={buttonClass("secondary")}>
        {pending ? "Retrying…" : "Retry delivery"}
      </button>
      <span role="alert" aria-live="polite" className="w-full text-sm text-red-700">
        {error}
      </span>
    </form>
  );
}
