/**
 * Who is calling, as a value. The guard (lib/guard) decides it once per HTTP request from the
 * socket and the credentials, and hands it to every handler: Hono routes read `c.var.caller`,
 * pages and server actions (and the domain functions they call) read `currentCaller()`, which
 * is the request's value kept in an AsyncLocalStorage. Outside any request (`baton mcp` over
 * stdio, the CLI, tests calling the domain) the caller is this machine's own process. Nothing a
 * client sends (no header, no query) can set it. The rules that depend on it live here, once:
 * every door and every domain function asks these functions.
 */
import "server-only";
import { AsyncLocalStorage } from "node:async_hooks";
import type { Role } from "./auth/schemas";
import { Forbidden } from "./errors";
import { repoPathSchema } from "./git/types";
import { clientSideSchema, type ClientSide } from "./handoffs/schemas";

/** Who the caller is. */
export type Who =
  /** The open desk: a loopback peer naming a loopback address, without forwarding headers, with BATON_AUTH not required (lib/guard, isFromThisMachine). */
  | { kind: "desk" }
  /** An operator (or agent) signed in with a token: the dashboard's session cookie. */
  | { kind: "session"; tokenId: number; name: string; role: Role; proof: string }
  /** A named access token sent as a bearer. */
  | { kind: "token"; tokenId: number; name: string; role: Role; proof: string }
  /** A connector's OAuth grant (a remote Claude client), acting as the side it was approved for. */
  | { kind: "connector"; tokenId: number; name: string; side: ClientSide; proof: string }
  /** A public path (sign-in, OAuth discovery) reached without credentials. */
  | { kind: "anonymous" }
  /** This machine's own process: `baton mcp` over stdio, the CLI, a hook. */
  | { kind: "process" };

/**
 * A caller: who, and whether it is on Baton's own machine (stdio and the CLI, or HTTP from a
 * loopback peer naming a loopback address, without forwarding headers). A token holder on
 * loopback is local; the same token from a LAN peer, or through a proxy, is not.
 */
export type Caller = {
  who: Who;
  local: boolean;
  /** The side the door was told calls count as when they name none (`baton mcp --as code`, `/api/mcp?as=code`). */
  side?: ClientSide;
};

let processCaller: Caller = Object.freeze({ who: Object.freeze({ kind: "process" as const }), local: true });

/** This process's own side (`baton mcp --as code`, BATON_CLIENT): stdio and the CLI serve one caller. */
export function setProcessSide(side: ClientSide): void {
  processCaller = Object.freeze({ ...processCaller, side });
}

// One store for the whole process: Next's server bundle and Baton's own server each load this
// module, and both must see the value the guard set.
const storeKey = Symbol.for("baton.caller.store");
const servingKey = Symbol.for("baton.caller.serving");
type CallerGlobal = { [storeKey]?: AsyncLocalStorage<Caller>; [servingKey]?: boolean };
const holder = globalThis as CallerGlobal;
const store = (holder[storeKey] ??= new AsyncLocalStorage<Caller>());

/** Runs `work` with `caller` as the current caller (the guard, once per admitted request). */
export function withCaller<T>(caller: Caller, work: () => T): T {
  return store.run(caller, work);
}

/**
 * Marks this process as an HTTP server: from then on, code that runs outside a request's
 * context gets no caller at all (an error) instead of the machine's own process, so a path
 * that lost its context fails closed.
 */
export function markServing(): void {
  holder[servingKey] = true;
}

/** The caller of the code running now: the request's, else (stdio, CLI) this machine's process. */
export function currentCaller(): Caller {
  const caller = store.getStore();
  if (caller) return caller;
  if (holder[servingKey]) throw new Error("no caller: this code ran outside the request the guard admitted");
  return processCaller;
}

/** The caller of the current request, or null outside one (proxy.ts: nothing the guard admitted). */
export function requestCaller(): Caller | null {
  return store.getStore() ?? null;
}

/** A short name for logs and pages: `operator "ci"`, `connector "Claude"`, `the desk`. */
function describeCaller(caller: Caller): string {
  const who = caller.who;
  switch (who.kind) {
    case "desk":
      return "the operator at this machine's desk";
    case "process":
      return "a process on this machine";
    case "anonymous":
      return "an anonymous caller";
    case "connector":
      return `connector "${who.name}"`;
    default:
      return `${who.role} "${who.name}"`;
  }
}

/** The operator: at the desk, signed in with an operator token, or sending one; this machine's own processes too. */
export function isOperator(caller: Caller): boolean {
  const who = caller.who;
  return who.kind === "desk" || who.kind === "process" || ((who.kind === "session" || who.kind === "token") && who.role === "operator");
}

/** The token behind a caller (session, bearer or connector grant), for per-caller limits; null for the desk and processes. */
function tokenIdOf(caller: Caller): number | null {
  const who = caller.who;
  return who.kind === "session" || who.kind === "token" || who.kind === "connector" ? who.tokenId : null;
}

/**
 * Whose desk this is, for what the desk keeps per operator (Done and Snooze in "Needs you now"):
 * "local" for this machine's operator (the open desk, its own processes), `token:<id>` for an
 * operator signed in or sending a token; null for a caller that is no operator.
 */
export function operatorKeyOf(caller: Caller): string | null {
  if (!isOperator(caller)) return null;
  const id = tokenIdOf(caller);
  return id === null ? "local" : `token:${id}`;
}

/** A stable key for what belongs to one caller (MCP sessions, their cap). */
export function callerKey(caller: Caller): string {
  const who = caller.who;
  const id = tokenIdOf(caller);
  return id === null ? `${who.kind}:${caller.local ? "local" : "remote"}` : `${who.kind}:${id}`;
}

/**
 * The side a call counts as when it names none, for every door: the side the door was told
 * (`--as`, `?as=`), else a connector's approved side, else chat (the seed's default).
 */
export function defaultSideOf(caller: Caller): ClientSide {
  return caller.side ?? (caller.who.kind === "connector" ? caller.who.side : "chat");
}

/**
 * The side a call counts as: the side it names, else the caller's default. A connector acts only
 * as the side the operator approved on the consent page ("Claude wants to act as chat"): naming
 * the other one is refused, where it used to let a grant approved for code write as chat.
 */
export function sideOfCall(caller: Caller, named: ClientSide | undefined): ClientSide {
  const side = named ?? defaultSideOf(caller);
  if (caller.who.kind === "connector" && side !== caller.who.side) {
    throw new Forbidden(`this connector was approved to act as ${caller.who.side}, not ${side}; leave the side out, or approve another connection for ${side}`, {
      asClient: [`is ${caller.who.side} for this connector`],
    });
  }
  return side;
}

/** An operation's `asClient`: the side named, else the current caller's default side (sideOfCall). Every operation's schema uses it. */
export const asClientSchema = clientSideSchema.optional().transform((side) => sideOfCall(currentCaller(), side));

/**
 * Whether the caller may have Baton read git in a folder it names (`repoPath` / `repo_path`):
 * only a caller on Baton's own machine, who could read it anyway. A remote token holder could
 * otherwise make git run in any folder of the server.
 */
function mayNameFolders(caller: Caller): boolean {
  return caller.local;
}

function assertMayNameFolders(caller: Caller): void {
  if (!mayNameFolders(caller)) {
    throw new Forbidden(`a repository folder (repoPath, or repo_path over MCP) is read only for callers on Baton's own machine (stdio, the CLI, or HTTP from loopback); leave it out`, {
      repoPath: ["is read only for callers on Baton's own machine"],
    });
  }
}

/**
 * A folder an operation reads (`repoPath`, a link's folder, a hook's `cwd`): an absolute folder
 * on Baton's machine, named only by a caller on that machine. The rule runs as the input is parsed (a Forbidden, 403), so an operation that
 * takes a folder cannot forget it: tests/caller-rules.test.ts refuses any other folder schema.
 */
export const namedFolderSchema = repoPathSchema.transform((path) => {
  assertMayNameFolders(currentCaller());
  return path;
});

/**
 * Whether the caller may have Baton type into a tmux pane (a successor's target): the operator
 * only. Never an agent token or a connector, even on loopback: typed text runs in the operator's
 * terminal.
 */
function mayTypeIntoTmux(caller: Caller): boolean {
  return isOperator(caller);
}

export function assertMayTypeIntoTmux(caller: Caller, field = "tmuxTarget"): void {
  if (!mayTypeIntoTmux(caller)) {
    throw new Forbidden(`${describeCaller(caller)} may not name a tmux target: typing into a pane is for the operator; leave ${field} out and let the operator deliver it`, {
      [field]: ["typing into tmux is for the operator"],
    });
  }
}
