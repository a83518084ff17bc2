"use client";

import { useRef } from "react";
import { revokeTokenAction } from "@/app/settings/tokens/actions";
import { CONFIRM_ACTION_BUTTON, ConfirmAction } from "@/components/ui/confirm-action";
import { useFocusOutlivesRows } from "@/components/ui/use-focus-outlives-rows";
import { RelativeTime } from "@/components/ui/relative-time";
import type { TokenView } from "@/lib/auth/tokens";

/** Revoking asks first: whatever uses the token (an agent, a connector, a signed-in browser) stops on its next request. */
function RevokeButton({ token }: { token: TokenView }) {
  return (
    <ConfirmAction
      action={revokeTokenAction}
      fields={{ name: token.name }}
      label="Revoke"
      describe={`Revoke ${token.name}`}
      title={`Revoke ${token.name}?`}
      confirmLabel="Revoke token"
      busyLabel="Revoking…"
    >
      {token.connector
        ? "The connector loses access on its next request, with every token issued to it. Connecting it again needs a new approval."
        : `Whatever uses this ${token.role} token stops working on its next request${token.role === "operator" ? ", and browsers signed in with it are signed out" : ""}. This cannot be undone: a new token is a new secret.`}
    </ConfirmAction>
  );
}

/** Where focus goes when the last token is revoked. */
const NO_TOKENS_ID = "no-tokens";

/** A revoked token's row leaves: focus goes to the next row's Revoke, or to the empty list's words. */
export function TokenList({ tokens }: { tokens: TokenView[] }) {
  const rows = useRef<HTMLTableSectionElement>(null);
  const focusKeeping = useFocusOutlivesRows(
    rows,
    tokens.map((token) => token.name),
    { keyAttribute: "data-row-key", focusIn: CONFIRM_ACTION_BUTTON, fallbackId: NO_TOKENS_ID },
  );
  if (tokens.length === 0) {
    return (
      <p id={NO_TOKENS_ID} tabIndex={-1} className="text-sm text-slate-600">
        No tokens yet. On loopback the desk is open without one; beyond loopback nothing is served without one.
      </p>
    );
  }
  return (
    <table className="w-full border-collapse text-left text-sm">
      <caption className="sr-only">Access tokens</caption>
      <thead>
        <tr className="border-b border-slate-200 text-slate-600">
          <th className="py-2 pr-3 font-medium">Name</th>
          <th className="py-2 pr-3 font-medium">Role</th>
          <th className="hidden py-2 pr-3 font-medium sm:table-cell">Created</th>
          <th className="hidden py-2 pr-3 font-medium sm:table-cell">Last used</th>
          <th className="py-2 font-medium">
            <span className="sr-only">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody ref={rows} {...focusKeeping}>
        {tokens.map((token) => (
          <tr key={token.name} data-row-key={token.name} className="border-b border-slate-100">
            <td className="py-2 pr-3">
              <span className="font-mono break-all">{token.name}</span>
              {token.connector && <span className="block text-xs text-slate-600">{token.connector.label}</span>}
              {/* On phones the two date columns fold under the name. */}
              <span className="block text-xs text-slate-600 sm:hidden">
                created <RelativeTime iso={token.createdAt} /> · last used {token.lastUsedAt ? <RelativeTime iso={token.lastUsedAt} /> : "never"}
              </span>
            </td>
            <td className="py-2 pr-3">{token.role}</td>
            <td className="hidden py-2 pr-3 sm:table-cell">
              <RelativeTime iso={token.createdAt} />
            </td>
            <td className="hidden py-2 pr-3 sm:table-cell">{token.lastUsedAt ? <RelativeTime iso={token.lastUsedAt} /> : "never"}</td>
            <td className="py-2">
              <RevokeButton token={token} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
