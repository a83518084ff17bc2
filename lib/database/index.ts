/**
 * lib/database: the one way the domain reaches its data, on either engine. `DATABASE_URL`
 * chooses: unset or `file:` is the embedded SQLite (lib/database/sqlite.ts), `postgresql://` or
 * `postgres://` a team's PostgreSQL (lib/database/postgres.ts). Prisma stays the schema and
 * migration authority (prisma/schema.prisma; lib/database/migrate.ts applies its migrations).
 *
 * Functions that compose inside a caller's transaction take that caller's `tx` as their first
 * argument (the one documented way); a `write` or `read` called inside another joins it.
 */
import "server-only";
import { databaseUrl } from "../config";
import { engineOf } from "./engine";
import { openPostgres } from "./postgres";
import { openSqlite } from "./sqlite";
import type { Database, Params, Tx, WriteOptions } from "./types";

export type { Database, Engine, Params, Tx, WriteOptions } from "./types";
export { BUSY_TIMEOUT_MS } from "./busy";
export { listen, type Listening } from "./listen";
export { vacuum } from "./vacuum";
export { engineOf } from "./engine";
export { placeholders } from "./params";

/** The largest value an integer column holds on PostgreSQL (int4): ids and seqs past it are refused or cut to it. */
export const MAX_INT4 = 2_147_483_647;

/**
 * `settings`: what decides databaseUrl when the database was opened (DATABASE_URL, BATON_DATA_DIR and
 * the working folder a relative path resolves against; the default data folder stays the same in
 * a process). While they are the same the URL is too, and a call is answered without working it
 * out again: each read of process.env is a call into Node's C++, and an append asks for the
 * database several times.
 */
type Held = { url: string; database: Database; settings: DatabaseSettings };
type DatabaseSettings = { databaseUrl: string | undefined; dataDir: string | undefined; workingFolder: string };
const globalForDatabase = globalThis as unknown as { batonDatabase?: Held; batonDatabaseCloses?: Set<() => void> };

/**
 * What stops when the process's database closes: background work that reads it on a timer (the
 * change feed's follower, the revocation watch). Its next tick would otherwise open the database
 * again, and on SQLite make the file (and its folder) anew after a test or a shutdown removed them.
 */
function closeHooks(): Set<() => void> {
  return (globalForDatabase.batonDatabaseCloses ??= new Set());
}

/**
 * Calls `stop` when the database closes (closeDatabase, or another DATABASE_URL taking over), once;
 * returns the function that unregisters it, for work that stops by itself first.
 */
export function whenDatabaseCloses(stop: () => void): () => void {
  const hooks = closeHooks();
  hooks.add(stop);
  return () => hooks.delete(stop);
}

function runCloseHooks(): void {
  const hooks = [...closeHooks()];
  closeHooks().clear();
  for (const stop of hooks) {
    try {
      stop();
    } catch (error) {
      console.error("baton: stopping work on the closing database failed", error);
    }
  }
}

const sameSettings = (one: DatabaseSettings, other: DatabaseSettings) =>
  one.databaseUrl === other.databaseUrl && one.dataDir === other.dataDir && one.workingFolder === other.workingFolder;

/** The process's database (reopened if DATABASE_URL or BATON_DATA_DIR changed, as tests do). */
export function database(): Database {
  const { DATABASE_URL, BATON_DATA_DIR } = process.env;
  const settings = { databaseUrl: DATABASE_URL, dataDir: BATON_DATA_DIR, workingFolder: process.cwd() };
  const held = globalForDatabase.batonDatabase;
  if (held && sameSettings(held.settings, settings)) return held.database;
  const url = databaseUrl();
  if (held && held.url === url) {
    held.settings = settings;
    return held.database;
  }
  if (held) {
    runCloseHooks();
    void held.database.close();
  }
  const opened = { url, database: engineOf(url) === "postgres" ? openPostgres(url) : openSqlite(url), settings };
  globalForDatabase.batonDatabase = opened;
  return opened.database;
}

/** Equal between two calls only when nothing changed the database in between; null when that cannot be told (Database.changeStamp). */
export function changeStamp(): Promise<string | null> {
  return database().changeStamp();
}

/** Whether the caller may be inside a write transaction that may yet roll back (Database.insideWrite). */
export function insideWrite(): boolean {
  return database().insideWrite();
}

/** Runs `work` in one write transaction; a throw rolls it back. */
export function write<T>(work: (tx: Tx) => Promise<T>, options?: WriteOptions): Promise<T> {
  return database().write(work, options);
}

/** Runs `work` in a write transaction it may share with concurrent callers' (group commit; see Database.writeGrouped). */
export function writeGrouped<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
  return database().writeGrouped(work);
}

/** Runs `work` in one read transaction: a consistent snapshot across its statements. */
export function read<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
  return database().read(work);
}

/** One statement that is its whole write transaction (see Database.writeStatement). */
export function writeStatement<Row = Record<string, unknown>>(text: string, params?: Params): Promise<Row[]> {
  return database().writeStatement<Row>(text, params);
}

/** Closes the process's database (tests and short-lived CLI commands). */
export async function closeDatabase(): Promise<void> {
  const held = globalForDatabase.batonDatabase;
  globalForDatabase.batonDatabase = undefined;
  runCloseHooks();
  await held?.database.close();
}

/**
 * ` FOR UPDATE` on PostgreSQL, nothing on SQLite (whose write transaction already holds the
 * database): the row lock that serializes writers of one handoff, agent or delivery. `of` names
 * the joined table whose rows are locked; `skipLocked` passes over rows another transaction
 * holds (a queue's claim, a clean-up that must not wait).
 */
export function lockRows(tx: Tx, { of, skipLocked = false }: { of?: string; skipLocked?: boolean } = {}): string {
  if (tx.engine !== "postgres") return "";
  return ` FOR UPDATE${of ? ` OF ${of}` : ""}${skipLocked ? " SKIP LOCKED" : ""}`;
}

/** True for a unique-constraint failure on either engine. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}

/**
 * The database's clock, for times one process writes and another compares with its own "now" (a
 * webhook delivery's lease): on PostgreSQL the server's, one clock for every instance, where the
 * machines' own clocks may be apart by more than a lease; on SQLite, whose processes share one
 * machine, this process's.
 */
export async function databaseNow(tx: Tx): Promise<Date> {
  if (tx.engine !== "postgres") return new Date();
  return new Date(Date.parse((await tx.get<{ now: string }>("SELECT clock_timestamp() AS now"))!.now));
}

let lastStoredMs = 0;
/**
 * How far "strictly later" may run ahead of the clock. A process storing more than a thousand
 * dates a second (a bulk import: 25,000 entries in two seconds) would otherwise stamp rows ever
 * further in the future, and a webhook delivery or a resumed hook would wait for the clock to
 * catch up. Past it, dates may repeat; every list that orders by a date breaks ties by id.
 */
const MAX_AHEAD_MS = 50;

/**
 * A date as Baton stores it (Prisma's form): `2026-11-22T06:54:51.471+00:00`. Without an
 * explicit date it is "now", later than the previous one this process stored while that stays
 * within MAX_AHEAD_MS of the clock: several writes fit in one millisecond, and the history
 * orders by last activity.
 */
export function storedDate(date?: Date): string {
  const now = Date.now();
  const ms = date ? date.getTime() : (lastStoredMs = Math.max(now, Math.min(lastStoredMs + 1, now + MAX_AHEAD_MS)));
  return new Date(ms).toISOString().replace("Z", "+00:00");
}
