"use client";

import { useActionState } from "react";
import { markReadAction } from "@/app/handoffs/actions";
import { buttonClass } from "@/components/ui/button";
import { idleFormState, withoutPreviousState } from "@/lib/form-state";
import type { ClientSide } from "@/lib/handoffs/schemas";
import { useRefreshAfterSuccess } from "./use-refresh-thread";

function MarkReadButton({ handoffId, side }: { handoffId: string; side: ClientSide }) {
  const [state, formAction, pending] = useActionState(withoutPreviousState(markReadAction), idleFormState);
  useRefreshAfterSuccess(state, handoffId);
  return (
    <form action={formAction} className="flex flex-col gap-1">
      <input type="hidden" name="id" value={handoffId} />
      <input type="hidden" name="asClient" value={side} />
      <button type="submit" disabled={pending} className={buttonClass("secondary")} title={`Marks every entry of this thread read for the ${side} side`}>
        {pending ? "Marking…" : `Mark read as ${side}`}
      </button>
      <span aria-live="polite" className={`text-xs ${state.status === "error" ? "text-red-700" : "text-slate-600"}`}>
        {state.message}
      </span>
    </form>
  );
}

/** One "mark read" per side: moves that side's cursor to the latest entry. */
export function CursorActions({ handoffId }: { handoffId: string }) {
  return (
    <div className="flex flex-wrap items-start gap-2">
      <MarkReadButton handoffId={handoffId} side="chat" />
      <MarkReadButton handoffId={handoffId} side="code" />
    </div>
  );
}
