import "server-only";
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Caller } from "../caller";
import { isLoopbackAddress } from "./policy";

/**
 * Next's own re-entry into this server: a server action that redirects renders the target page by
 * fetching it from this same server with the original request's headers (Next adds
 * `x-forwarded-*` to them), so the guard would see a forwarded request without its caller. Before
 * Next runs, the page's request gets a ticket: a random name for its caller in this process, good
 * only until that request's answer ends. A request that comes back with a live ticket has that
 * caller; any other value (a client's guess, an old ticket) is dropped with Baton's other header
 * names at the socket and changes nothing.
 */
export const REENTRY_HEADER = "x-baton-reentry";

const live = new Map<string, Caller>();
const reentered = new WeakMap<IncomingMessage, Caller>();

/** Gives the request Next is about to serve a ticket for its caller, valid until its answer ends. */
export function issueReentryTicket(incoming: IncomingMessage, outgoing: ServerResponse, caller: Caller): void {
  const ticket = randomBytes(24).toString("base64url");
  live.set(ticket, caller);
  incoming.headers[REENTRY_HEADER] = ticket;
  outgoing.once("close", () => live.delete(ticket));
}

/**
 * At the socket, before Baton's header names are dropped: remembers the caller of a request that
 * came back with a live ticket. Only from this machine (a loopback peer, or the server's own
 * address calling itself): Next's fetch starts here.
 */
export function noteReentry(incoming: IncomingMessage): void {
  const { remoteAddress, localAddress } = incoming.socket;
  if (!remoteAddress || !(isLoopbackAddress(remoteAddress) || remoteAddress === localAddress)) return;
  const ticket = incoming.headers[REENTRY_HEADER];
  const caller = typeof ticket === "string" ? live.get(ticket) : undefined;
  if (caller) reentered.set(incoming, caller);
}

/** The caller of a request Next sent back to this server, or null. */
export const reentryCallerOf = (incoming: IncomingMessage): Caller | null => reentered.get(incoming) ?? null;
