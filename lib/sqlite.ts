import "server-only";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { databaseFile, databaseUrl } from "./config";

/**
 * The process's direct SQLite connection, for the paths where speed matters (appending, reading
 * a thread, marking read, the history and its unread counts, the change feed). Prisma stays the
 * schema and migration authority (prisma/schema.prisma, prisma/migrations) and serves the
 * paths where speed does not matter; this connection runs prepared statements at SQLite's own
 * cost (~0.006 ms each against ~0.5 ms through the ORM).
 *
 * Transactions are synchronous: `write` runs its work inside BEGIN IMMEDIATE, so the write lock
 * is held for microseconds, never across an `await`, and writers of other processes wait for it
 * (see `write`) instead of failing. Functions that must compose inside a caller's transaction
 * take that caller's `Sql` as their first argument (the one documented way).
 */
export const BUSY_TIMEOUT_MS = 10_000;

/** Longest pause between two tries for the write lock: what a waiter can lose to a newcomer. */
const WRITE_RETRY_MAX_PAUSE_MS = 2;

export type Sql = {
  /** A prepared statement, compiled once per connection. */
  statement(text: string): Database.Statement;
  /** The same, returning each row as an array of its columns: about half the cost of row objects on long reads. */
  rawStatement(text: string): Database.Statement;
  /** The connection itself, for pragmas and the rare ad-hoc query. */
  readonly connection: Database.Database;
  /** Runs `work` with SQLite's busy handler off: a lock another connection holds fails at once (SQLITE_BUSY). */
  tryingForLocks<T>(work: () => T): T;
  /** Runs its argument inside a transaction (`.immediate(work)`, `.deferred(work)`); made once, not per call. */
  readonly inTransaction: Database.Transaction<(work: () => unknown) => unknown>;
};

type Held = { url: string; sql: Sql };
const globalForSqlite = globalThis as unknown as { batonSqlite?: Held };

function open(url: string): Sql {
  const file = databaseFile(url);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const connection = new Database(file, { timeout: BUSY_TIMEOUT_MS });
  connection.pragma("journal_mode = WAL");
  connection.pragma("synchronous = NORMAL");
  connection.pragma("foreign_keys = ON");
  const statements = new Map<string, Database.Statement>();
  const rawStatements = new Map<string, Database.Statement>();
  return {
    connection,
    inTransaction: connection.transaction((work: () => unknown) => work()),
    // Set each time with pragma(): SQLite applies busy_timeout when the statement is prepared,
    // so a prepared one run again changes nothing. The pair costs about 8 µs.
    tryingForLocks: (work) => {
      connection.pragma("busy_timeout = 0");
      try {
        return work();
      } finally {
        connection.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      }
    },
    statement(text) {
      let prepared = statements.get(text);
      if (!prepared) {
        prepared = connection.prepare(text);
        statements.set(text, prepared);
      }
      return prepared;
    },
    rawStatement(text) {
      let prepared = rawStatements.get(text);
      if (!prepared) {
        prepared = connection.prepare(text).raw(true);
        rawStatements.set(text, prepared);
      }
      return prepared;
    },
  };
}

/** The process's connection to the configured database (reopened if DATABASE_URL changed, as tests do). */
export function sql(): Sql {
  const url = databaseUrl();
  const held = globalForSqlite.batonSqlite;
  if (held && held.url === url) return held.sql;
  held?.sql.connection.close();
  const opened = { url, sql: open(url) };
  globalForSqlite.batonSqlite = opened;
  return opened.sql;
}

const pause = new Int32Array(new SharedArrayBuffer(4));
const isBusy = (error: unknown) => error instanceof Database.SqliteError && error.code.startsWith("SQLITE_BUSY");

/**
 * Runs `work` in one write transaction (BEGIN IMMEDIATE); a throw rolls it back.
 *
 * While another process holds the write lock, this tries again after a pause of at most
 * WRITE_RETRY_MAX_PAUSE_MS (with jitter), for up to BUSY_TIMEOUT_MS. SQLite's own busy handler
 * backs off to 100 ms sleeps, so a writer that lost a few times slept while newcomers took the
 * lock: with 32 writer processes its slowest appends waited over a second. The pause blocks the
 * thread, as SQLite's sleep did. Only BEGIN is tried again: once `work` started, the lock is held.
 * `waitMs` shortens the wait for housekeeping that would rather skip a turn (SQLITE_BUSY).
 */
export function write<T>(work: (tx: Sql) => T, { waitMs = BUSY_TIMEOUT_MS }: { waitMs?: number } = {}): T {
  const db = sql();
  let started = false;
  const inside = () => {
    started = true;
    return work(db);
  };
  const deadline = performance.now() + waitMs;
  return db.tryingForLocks(() => {
    for (let attempt = 0; ; attempt++) {
      try {
        return db.inTransaction.immediate(inside) as T;
      } catch (error) {
        if (started || !isBusy(error) || performance.now() > deadline) throw error;
        Atomics.wait(pause, 0, 0, Math.min(WRITE_RETRY_MAX_PAUSE_MS, 0.05 * 2 ** attempt) * (0.5 + Math.random()));
      }
    }
  });
}

/** Runs `work` in one read transaction: a consistent snapshot across its statements. */
export function read<T>(work: (tx: Sql) => T): T {
  const db = sql();
  return db.inTransaction.deferred(() => work(db)) as T;
}

/** Closes the connection (tests and short-lived CLI commands). */
export function closeSqlite(): void {
  globalForSqlite.batonSqlite?.sql.connection.close();
  globalForSqlite.batonSqlite = undefined;
}

let lastStoredMs = 0;

/**
 * A date as Prisma stores DateTime in SQLite: `2026-11-22T06:54:51.471+00:00`. Without an
 * explicit date it is "now", strictly later than the previous one this process stored: several
 * writes fit in one millisecond, and the history orders by last activity.
 */
export function storedDate(date?: Date): string {
  const ms = date ? date.getTime() : (lastStoredMs = Math.max(Date.now(), lastStoredMs + 1));
  return new Date(ms).toISOString().replace("Z", "+00:00");
}
