"use client";

import { useActionState } from "react";
import { revokeTokenAction } from "@/app/settings/tokens/actions";
import { buttonClass } from "@/components/ui/button";
import { RelativeTime } from "@/components/ui/relative-time";
import type { TokenView } from "@/lib/auth/tokens";
import { idleFormState } from "@/lib/form-state";

function RevokeButton({ name }: { name: string }) {
  const [state, formAction, pending] = useActionState(revokeTokenAction, idleFormState);
  return (
    <form action={formAction}>
      <input type="hidden" name="name" value={name} />
      <button type="submit" disabled={pending} className={buttonClass("danger")} aria-label={`Revoke ${name}`}>
        {pending ? "Revoking…" : "Revoke"}
      </button>
      <span aria-live="polite" className="text-sm text-red-700">
        {state.status === "error" && state.message}
      </span>
    </form>
  );
}

export function TokenList({ tokens }: { tokens: TokenView[] }) {
  if (tokens.length === 0) {
    return <p className="text-sm text-slate-600">No tokens yet. On loopback the desk is open without one; beyond loopback nothing is served without one.</p>;
  }
  return (
    <table className="w-full border-collapse text-left text-sm">
      <caption className="sr-only">Access tokens</caption>
      <thead>
        <tr className="border-b border-slate-200 text-slate-600">
          <th className="py-2 pr-3 font-medium">Name</th>
          <th className="py-2 pr-3 font-medium">Role</th>
          <th className="py-2 pr-3 font-medium">Created</th>
          <th className="py-2 pr-3 font-medium">Last used</th>
          <th className="py-2 font-medium">
            <span className="sr-only">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {tokens.map((token) => (
          <tr key={token.name} className="border-b border-slate-100">
            <td className="py-2 pr-3">
              <span className="font-mono">{token.name}</span>
              {token.connector && <span className="block text-xs text-slate-600">{token.connector.label}</span>}
            </td>
            <td className="py-2 pr-3">{token.role}</td>
            <td className="py-2 pr-3">
              <RelativeTime iso={token.createdAt} />
            </td>
            <td className="py-2 pr-3">{token.lastUsedAt ? <RelativeTime iso={token.lastUsedAt} /> : "never"}</td>
            <td className="py-2">
              <RevokeButton name={token.name} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
