import "server-only";
import { Unavailable } from "../errors";
import { wholeNumberParam } from "../validation";
import type { Engine } from "./types";

/**
 * "Busy past the wait", the one rule for both engines: a transaction that gave up waiting for
 * another one's lock becomes the domain's Unavailable (503, a tool error, the CLI's exit 1, a
 * form's message), saying what was busy, that nothing was stored and that the same request may be
 * sent again. Every door maps Unavailable as it maps the other domain errors; none of them knows
 * a driver's codes. Only the error path calls this.
 */
export const DEFAULT_BUSY_TIMEOUT_MS = 10_000;
const MAX_BUSY_TIMEOUT_MS = 600_000;

const busyTimeoutSetting = wholeNumberParam("BATON_BUSY_TIMEOUT_MS", 0, MAX_BUSY_TIMEOUT_MS).safeParse(process.env.BATON_BUSY_TIMEOUT_MS);

/**
 * How long a SQLite connection waits for another process's lock (BATON_BUSY_TIMEOUT_MS, read once
 * when the process starts; 10 s unset). A value out of range leaves the default here and is
 * refused when the database opens (refuseBadBusyTimeout), as BATON_DB_POOL_SIZE is. A live
 * binding, read where each wait starts: a hook lowers it (lowerBusyTimeout).
 */
export let BUSY_TIMEOUT_MS = busyTimeoutSetting.success ? (busyTimeoutSetting.data ?? DEFAULT_BUSY_TIMEOUT_MS) : DEFAULT_BUSY_TIMEOUT_MS;

/**
 * Bounds the lock wait to at most `maxMs` from now on, for a process that must answer in time (a
 * Claude Code hook): only ever lowered. Called before the database opens, it holds for every wait.
 * A setting out of range is still refused when the database opens.
 */
export function lowerBusyTimeout(maxMs: number): void {
  BUSY_TIMEOUT_MS = Math.min(BUSY_TIMEOUT_MS, maxMs);
}

export function refuseBadBusyTimeout(): void {
  if (busyTimeoutSetting.success) return;
  throw new Unavailable(
    `BATON_BUSY_TIMEOUT_MS must be a whole number of milliseconds from 0 to ${MAX_BUSY_TIMEOUT_MS.toLocaleString("en-US")} (it is ${JSON.stringify(process.env.BATON_BUSY_TIMEOUT_MS)}); fix it or leave it unset for ${DEFAULT_BUSY_TIMEOUT_MS.toLocaleString("en-US")}`,
  );
}

/** SQLite: the lock stayed taken for the whole busy timeout (SQLITE_BUSY_*), or a table was locked (SQLITE_LOCKED_*). */
const isSqliteBusy = (code: string) => code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED");
/** PostgreSQL: query_canceled (statement_timeout ran out, or an administrator cancelled it) and lock_not_available (lock_timeout, NOWAIT). */
const POSTGRES_BUSY = new Set(["57014", "55P03"]);

/** How a refusal of a request that stored nothing ends, on either engine and every door. */
export const AGAIN = "nothing of this request was stored; send the same request again in a moment";

/**
 * `error` as Unavailable when it says the database stayed busy past `waitedMs`, or that the disk
 * holding a SQLite database is full (SQLITE_FULL: no room for the WAL's new pages; a data folder on
 * a full disk answered every write with a 500 and "internal error"); any other error as it is.
 * Called where the transaction that failed was rolled back, so "nothing was stored" holds.
 */
export function unavailableWhenBusy(error: unknown, engine: Engine, waitedMs: number): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return error;
  if (engine === "sqlite" && code === "SQLITE_FULL") {
    return new Unavailable("the disk holding the database is full; nothing of this request was stored: free some space on it, then send the same request again");
  }
  const waited = waitedMs >= 1000 ? `${waitedMs / 1000} s` : `${waitedMs} ms`;
  if (engine === "sqlite" && isSqliteBusy(code)) {
    return new Unavailable(
      `the database is busy: another process kept it locked for the ${waited} Baton waits (a long import, a vacuum, a sqlite3 shell with a transaction open); ${AGAIN}`,
    );
  }
  if (engine === "postgres" && POSTGRES_BUSY.has(code)) {
    const why = code === "55P03" ? "another transaction held a lock this needed past the server's lock_timeout" : `it did not finish within ${waited} (waiting for another transaction's lock, or the server busy)`;
    return new Unavailable(`the database is busy: ${why}; ${AGAIN}`);
  }
  return error;
}
