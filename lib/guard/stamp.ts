import "server-only";
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Principal } from "../auth/tokens";

/**
 * The guard's stamp on an admitted request: the process's secret and who the caller is. Kept
 * apart from the checks (no database) because proxy.ts, which runs inside Next, reads it.
 */
export const GUARD_HEADER = "x-baton-guard";
export const PRINCIPAL_HEADER = "x-baton-principal";
/** The side a connector's grant acts as (lib/oauth): the MCP door's default `as_client`. */
export const ACT_AS_HEADER = "x-baton-act-as";

export type Caller =
  /** A token or a session. */
  | { kind: "token"; principal: Principal }
  /** The open desk: a loopback peer, no forwarding headers, BATON_AUTH not required. */
  | { kind: "local" }
  /** A public path (sign-in) reached without credentials. */
  | { kind: "anonymous" };

const secretKey = Symbol.for("baton.guard.secret");
type GuardGlobal = { [secretKey]?: string };

/**
 * A per-process secret the guard stamps on admitted requests; proxy.ts refuses requests without
 * it, so a Next started without Baton's server in front (plain `next start`) serves nothing.
 */
export function guardSecret(): string {
  const holder = globalThis as GuardGlobal;
  return (holder[secretKey] ??= randomBytes(24).toString("base64url"));
}

/** Marks an admitted request for Next: the guard's stamp and who the caller is, replacing any client copy. */
export function stampAdmitted(request: IncomingMessage, caller: Caller): void {
  request.headers[GUARD_HEADER] = guardSecret();
  request.headers[PRINCIPAL_HEADER] = caller.kind === "token" ? `${caller.principal.role}:${caller.principal.name}` : caller.kind;
  if (caller.kind === "token" && caller.principal.actAs) request.headers[ACT_AS_HEADER] = caller.principal.actAs;
}

/**
 * Whether a request already carries this process's stamp: Next forwards some requests to its own
 * server (a server action that redirects fetches the target page with the original request's
 * headers), and those were screened when they first came in. Nobody outside the process knows it.
 */
export function carriesOwnStamp(request: IncomingMessage): boolean {
  const value = request.headers[GUARD_HEADER];
  if (typeof value !== "string") return false;
  const expected = Buffer.from(guardSecret());
  const given = Buffer.from(value);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Removes the guard's headers a client may have sent, before anything reads them. */
export function stripGuardHeaders(request: IncomingMessage): void {
  delete request.headers[GUARD_HEADER];
  delete request.headers[PRINCIPAL_HEADER];
  delete request.headers[ACT_AS_HEADER];
}

/** Who the guard admitted, read back inside Next from the stamped headers. */
export function callerOf(headers: Headers): Caller {
  const value = headers.get(PRINCIPAL_HEADER) ?? "anonymous";
  if (value === "local") return { kind: "local" };
  const match = /^(operator|agent):(.+)$/.exec(value);
  return match ? { kind: "token", principal: { tokenId: 0, role: match[1] as "operator" | "agent", name: match[2] } } : { kind: "anonymous" };
}
