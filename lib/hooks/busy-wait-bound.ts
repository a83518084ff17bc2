import "server-only";
import { HOOK_DEADLINE_MS } from "./deadline";

/**
 * How long a hook's SQLite connection waits for another process's lock, at most: half the hook's
 * deadline, the rest being for reading standard input, starting and answering. SQLite waits inside
 * the driver, synchronously, so no timer of the hook runs meanwhile and its deadline cannot cut the
 * wait short: a database locked whole (a sqlite3 shell in exclusive locking mode) held a hook for
 * all of BATON_BUSY_TIMEOUT_MS, 10 s by default and up to 600 s, past Claude Code's timeout.
 */
export const HOOK_BUSY_WAIT_MS = HOOK_DEADLINE_MS / 2;

// The database layer reads the variable once, as it loads: the hook command imports this module
// before it. Only ever lowered; a value that is no whole number is left for the database to refuse.
const configured = process.env.BATON_BUSY_TIMEOUT_MS?.trim();
if (!configured || (/^\d+$/.test(configured) && Number(configured) > HOOK_BUSY_WAIT_MS)) {
  process.env.BATON_BUSY_TIMEOUT_MS = String(HOOK_BUSY_WAIT_MS);
}
