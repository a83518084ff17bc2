import "server-only";
import { AGAIN, lowerBusyTimeout } from "../database/busy";
import { Unavailable } from "../errors";
import { oneLine } from "../one-line";
import { HOOK_DEADLINE_MS } from "./deadline";

/**
 * How long a hook's SQLite connection waits for another process's lock, at most: half the hook's
 * deadline, the rest being for reading standard input, starting and answering. SQLite waits inside
 * the driver, synchronously, so no timer of the hook runs meanwhile and its deadline cannot cut the
 * wait short: a database locked whole (a sqlite3 shell in exclusive locking mode) held a hook for
 * all of BATON_BUSY_TIMEOUT_MS, 10 s by default and up to 600 s, past Claude Code's timeout.
 */
export const HOOK_BUSY_WAIT_MS = HOOK_DEADLINE_MS / 2;

/**
 * Bounds this process's lock waits to HOOK_BUSY_WAIT_MS (only ever lowered): each hook command
 * calls it first, before its database opens. At run time rather than through the variable, which
 * the database layer reads as it loads: in the CLI's bundle (`baton checkpoint --hook`) it has
 * loaded before the command knows it runs as a hook.
 */
export function boundBusyWaitForHook(): void {
  lowerBusyTimeout(HOOK_BUSY_WAIT_MS);
}

/**
 * A refusal because the database stayed busy past the wait, worded for a hook: what was busy and
 * `; skipped, so the session is not held (<then>)` in place of "send the same request again"
 * (nobody sends a hook again, and nothing is misconfigured); null for any other error.
 */
export function busySkipNote(error: unknown, then: string): string | null {
  if (!(error instanceof Unavailable) || !error.message.endsWith(`; ${AGAIN}`)) return null;
  return `${oneLine(error.message.slice(0, -`; ${AGAIN}`.length))}; skipped, so the session is not held (${then})`;
}
