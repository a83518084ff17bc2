"use client";

import { useActionState, useState } from "react";
import { decideAuthorizationAction } from "@/app/oauth/authorize/actions";
import { buttonClass } from "@/components/ui/button";
import { CLIENT_SIDES } from "@/lib/handoffs/schemas";
import { idleFormState, withoutPreviousState } from "@/lib/form-state";

const SIDE_HINTS = { chat: "decisions: creates handoffs for code to implement", code: "implementation: picks up and reports on handoffs" } as const;

/**
 * "<client> wants to act as chat": the side to grant, the full address the decision is sent to
 * (anyone can register a client under any name; the address says who really gets the grant), and
 * Approve or Deny.
 */
export function ConsentForm({ clientName, redirectUri, params }: { clientName: string; redirectUri: string; params: Record<string, string | undefined> }) {
  const [state, formAction, pending] = useActionState(withoutPreviousState(decideAuthorizationAction), idleFormState);
  const [side, setSide] = useState(state.values?.act_as === "code" ? "code" : "chat");
  return (
    <form action={formAction} className="flex max-w-xl flex-col gap-4 rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-6">
      {Object.entries(params).map(([name, value]) => (value === undefined ? null : <input key={name} type="hidden" name={name} value={value} />))}
      <h2 className="text-base text-slate-900">
        <strong className="font-semibold"><bdi>{clientName}</bdi></strong> wants to act as <strong className="font-semibold">{side}</strong>
      </h2>
      <fieldset className="flex flex-col gap-1">
        <legend className="sr-only">Act as</legend>
        {CLIENT_SIDES.map((option) => (
          <label key={option} className="flex items-center gap-2 text-sm">
            <input type="radio" name="act_as" value={option} checked={side === option} onChange={() => setSide(option)} />
            <span>
              <span className="font-medium">{option}</span> <span className="text-slate-600">({SIDE_HINTS[option]})</span>
            </span>
          </label>
        ))}
      </fieldset>
      <div className="text-sm text-slate-600">
        <p>Whichever you choose, your browser then takes the answer to this address:</p>
        <p className="mt-1 rounded bg-slate-100 px-2 py-1 font-mono text-slate-900 break-all">{redirectUri}</p>
        <p className="mt-2">Approving lets <bdi>{clientName}</bdi> call Baton&apos;s MCP tools as {side} until you revoke it under Tokens. Approve only if you started this connection and know that address.</p>
      </div>
      <div aria-live="polite" className="text-sm text-red-700">
        {state.status === "error" && state.message && <p>{state.message}</p>}
      </div>
      <div className="flex gap-2">
        <button type="submit" name="decision" value="approve" disabled={pending} className={buttonClass("primary")}>
          Approve
        </button>
        <button type="submit" name="decision" value="deny" disabled={pending} className={buttonClass("secondary")}>
          Deny
        </button>
      </div>
    </form>
  );
}
