"use client";

import { useActionState } from "react";
import { retryDeliveryAction } from "@/app/agents/actions";
import { buttonClass } from "@/components/ui/button";
import { idleFormState } from "@/lib/form-state";

/** *Retry delivery*: types the injection prompt into the successor's tmux pane again. */
export function RetryDeliveryButton({ agentId }: { agentId: number }) {
  const [state, formAction, pending] = useActionState(retryDeliveryAction, idleFormState);
  return (
    <form action={formAction} className="flex flex-wrap items-center gap-2">
      <input type="hidden" name="agentId" value={agentId} />
      <button type="submit" disabled={pending} className={buttonClass("secondary")}>
        {pending ? "Retrying…" : "Retry delivery"}
      </button>
      <span role="alert" aria-live="polite" className="text-sm text-red-700">
        {state.message}
      </span>
    </form>
  );
}
