import "server-only";
import { randomUUID } from "node:crypto";
import { AsyncLocalStorage } from "node:async_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { databaseFile } from "../config";
import { Unavailable } from "../errors";
import { oneLine } from "../one-line";
import { makePrivateFolder } from "../paths.mjs";
import { BUSY_TIMEOUT_MS, refuseBadBusyTimeout, unavailableWhenBusy } from "./busy";
import { checkedParams } from "./params";
import type { Database, Params, Tx, WriteOptions } from "./types";

/**
 * How often a transaction checks that the database file is still the one it opened (a stat, at
 * most this often: never one per append on the hot path).
 */
const FILE_CHECK_EVERY_MS = 250;

/**
 * Checkpoints at idle moments (issue 29). SQLite checkpoints its write-ahead log inside the commit
 * that takes the log past 1,000 pages: that caller waited for two fsyncs (1-6 ms on the bench
 * machine, where an append takes 0.5 ms), and the first writer after the log restarted waited for
 * a third, the new log's header. A connection that has changed IDLE_CHECKPOINT_ROWS rows since its
 * last checkpoint (about 55 appends, 450 pages: half of SQLite's 1,000, so a burst between two idle
 * moments seldom reaches it) instead checkpoints once none of its transactions has run for
 * IDLE_CHECKPOINT_MS, then restarts the log with a one-page write, so the next caller's commit
 * syncs nothing. A write now and then (people's pace) stays in the log until enough have gathered;
 * writes that never pause still meet SQLite's own checkpoint.
 */
const IDLE_CHECKPOINT_MS = 5;
const IDLE_CHECKPOINT_ROWS = 250;

/** Longest pause between two tries for the write lock: what a waiter can lose to a newcomer. */
const WRITE_RETRY_MAX_PAUSE_MS = 2;

const isBusy = (error: unknown) => error instanceof BetterSqlite3.SqliteError && error.code.startsWith("SQLITE_BUSY");

/**
 * A database path that is no plain file (a folder, as `file:` alone names the working folder; a
 * device such as /dev/null, beside which SQLite made a journal) refused in one line: SQLite said
 * only "disk I/O error".
 */
export function refuseUnlessPlainFile(file: string, stat = fs.statSync(file, { throwIfNoEntry: false })): void {
  if (stat && !stat.isFile()) {
    throw new Unavailable(`the database ${oneLine(file)} is ${stat.isDirectory() ? "a folder" : "not a plain file"}; point DATABASE_URL (file:…) or BATON_DATA_DIR at a SQLite file, or where one may be made`);
  }
}

/**
 * Makes a missing database file, and its missing folder, its owner's alone before SQLite opens it
 * (SQLite gives the -wal and -shm files the database file's mode); an existing one is left as it is.
 */
export function createSqliteFile(file: string): void {
  makePrivateFolder(path.dirname(file));
  try {
    fs.closeSync(fs.openSync(file, "wx", 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    refuseUnlessPlainFile(file);
  }
}

/**
 * The embedded engine: one better-sqlite3 connection per process, prepared statements at
 * SQLite's own cost (~0.006 ms each). Transactions run one at a time per process (a queue):
 * `work` awaits only `tx`, whose promises are already settled, so a transaction holds the write
 * lock for microseconds, never across I/O. Writers of other processes wait for the lock (see
 * `write`, BUSY_TIMEOUT_MS) instead of failing, and past that wait are refused as Unavailable.
 */
export function openSqlite(url: string): Database {
  refuseBadBusyTimeout();
  // A stamp (Database.changeStamp) names its connection, whose counters start afresh: unique across reopenings and bundles.
  const connectionId = randomUUID();
  const file = databaseFile(url);
  createSqliteFile(file);
  const connection = new BetterSqlite3(file, { timeout: BUSY_TIMEOUT_MS });
  try {
    // The first statements read the file: another process holding it locked (locking_mode EXCLUSIVE) stops them.
    connection.pragma("journal_mode = WAL");
    connection.pragma("synchronous = NORMAL");
    connection.pragma("foreign_keys = ON");
    // From here on every wait for the lock is `begin`'s, whose pauses let the event loop run.
    connection.pragma("busy_timeout = 0");
  } catch (error) {
    connection.close();
    throw unavailableWhenBusy(error, "sqlite", BUSY_TIMEOUT_MS);
  }
  const opened = fs.statSync(file);
  let fileCheckedAt = performance.now();
  let fileGone = false;
  /**
   * SQLite in WAL mode writes on through a file that was deleted or moved away (no error, unlike
   * its rollback journal): each write was acknowledged and lost at the next start, while other
   * processes made and used a new file at the path. Refused instead (a ping too, so the health
   * check says so), from at most FILE_CHECK_EVERY_MS after it happened, until the file is back.
   */
  const refuseWhenFileGone = () => {
    const now = performance.now();
    if (now - fileCheckedAt >= FILE_CHECK_EVERY_MS) {
      fileCheckedAt = now;
      const current = fs.statSync(file, { throwIfNoEntry: false });
      fileGone = current?.ino !== opened.ino || current.dev !== opened.dev;
    }
    if (fileGone) {
      throw new Unavailable(
        `the database ${oneLine(file)} was deleted, moved or replaced while this process had it open; nothing of this request was stored: put the file back, or restart Baton to use the one that is there now`,
      );
    }
  };
  // SQLite's LOWER() folds ASCII letters only; PostgreSQL's folds every letter its UTF-8 locale knows.
  connection.function("unicode_lower", { deterministic: true }, (text: unknown) => (typeof text === "string" ? text.toLowerCase() : text));
  const statements = new Map<string, BetterSqlite3.Statement>();
  const rawStatements = new Map<string, BetterSqlite3.Statement>();
  const statement = (text: string) => {
    let prepared = statements.get(text);
    if (!prepared) {
      prepared = connection.prepare(text);
      statements.set(text, prepared);
    }
    return prepared;
  };
  const rawStatement = (text: string) => {
    let prepared = rawStatements.get(text);
    if (!prepared) {
      prepared = connection.prepare(text).raw(true);
      rawStatements.set(text, prepared);
    }
    return prepared;
  };
  /**
   * data_version changes when another connection (any process) commits; total_changes() counts
   * this connection's own row changes, triggers' included. Both unchanged: the database is as it was.
   */
  const stampStatement = connection.prepare("SELECT data_version, total_changes() FROM pragma_data_version").raw(true);
  /** In a write transaction: its changes are counted before they are committed or rolled back. */
  let writing = false;
  /** This connection's total_changes() at its last idle checkpoint. */
  let changesAtCheckpoint = 0;
  /** Armed by the first write, pushed back by every transaction: fires when the connection is idle. */
  let idleTimer: NodeJS.Timeout | undefined;
  /**
   * Transactions asked for and not yet ended: one waiting for another process's lock is not
   * idleness. The last of them to end pushes the idle checkpoint back again.
   */
  let unfinished = 0;
  /**
   * The log checkpointed and restarted, when this connection changed enough since the last time.
   * The restart is a write of the header's user_version, unchanged (Baton keeps nothing there):
   * the first page written into a restarted log is the one that syncs its header.
   */
  const checkpointWhenIdle = () => {
    if (!connection.open || unfinished > 0 || fileGone) return;
    const [, changes] = stampStatement.get() as [number, number];
    if (changes - changesAtCheckpoint < IDLE_CHECKPOINT_ROWS) return;
    changesAtCheckpoint = changes;
    try {
      const [log] = connection.pragma("wal_checkpoint(PASSIVE)") as { busy: number; log: number; checkpointed: number }[];
      if (log.busy !== 0 || log.log === 0 || log.checkpointed !== log.log || tryBegin()) return;
      connection.pragma(`user_version = ${Number(connection.pragma("user_version", { simple: true }))}`);
      statement("COMMIT").run();
    } catch {
      // Housekeeping only: a failure here (another process's lock, a full disk) leaves the log to
      // SQLite's own checkpoint, and a real fault is met and reported by the next request's write.
      if (connection.inTransaction) statement("ROLLBACK").run();
    }
  };
  /** After each transaction: the idle checkpoint pushed back, or armed after the first write. */
  const pushBackIdleCheckpoint = () => {
    if (idleTimer) idleTimer.refresh();
    else if (writing) idleTimer = setTimeout(checkpointWhenIdle, IDLE_CHECKPOINT_MS).unref();
  };
  const tx: Tx = {
    engine: "sqlite",
    get: async <Row>(text: string, params: Params = []) => statement(text).get(...checkedParams(params)) as Row | undefined,
    all: async <Row>(text: string, params: Params = []) => statement(text).all(...checkedParams(params)) as Row[],
    rows: async <Tuple>(text: string, params: Params = []) => rawStatement(text).all(...checkedParams(params)) as Tuple[],
    run: async (text: string, params: Params = []) => {
      checkedParams(params);
      const prepared = statement(text);
      // A SELECT (a pragma, a function with effects) cannot be run(); its rows changed nothing.
      if (prepared.reader) {
        prepared.all(...params);
        return 0;
      }
      return prepared.run(...params).changes;
    },
  };

  // Transactions of this process, one after another; a nested call joins the one it runs in.
  const inside = new AsyncLocalStorage<true>();
  let queue: Promise<unknown> = Promise.resolve();
  const queued = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };

  /** The busy error of a try that found the lock taken, else undefined (the transaction is open; a busy BEGIN IMMEDIATE leaves none). */
  const tryBegin = (): unknown => {
    try {
      statement("BEGIN IMMEDIATE").run();
      return undefined;
    } catch (error) {
      if (!isBusy(error)) throw error;
      return error;
    }
  };
  const waitToBegin = async (busy: unknown, deadline: number): Promise<void> => {
    for (let attempt = 0; busy; attempt++) {
      if (performance.now() > deadline) throw busy;
      await sleep(Math.min(WRITE_RETRY_MAX_PAUSE_MS, 0.05 * 2 ** attempt) * (0.5 + Math.random()));
      busy = tryBegin();
    }
  };
  /**
   * BEGIN IMMEDIATE, tried again while another process holds the write lock after a pause of at
   * most WRITE_RETRY_MAX_PAUSE_MS (with jitter), until `deadline` (performance.now()). The
   * connection's busy_timeout is 0 once it is open: SQLite's own busy handler sleeps in the thread
   * that runs JavaScript, so its wait froze the whole server, pages and event streams included, for
   * up to BUSY_TIMEOUT_MS; and it backs off to 100 ms sleeps, so a writer that lost a few times
   * slept while newcomers took the lock (with 32 writer processes the slowest appends waited over a
   * second). Setting busy_timeout to 0 around each try instead compiled two pragmas afresh per
   * write (SQLite applies one when it compiles it), and a process's first try applied nothing, so
   * its wait was SQLite's. The first try is synchronous and returns nothing when it takes the lock
   * (an uncontended write costs no promise, timer or await); only a busy answer returns the promise
   * of the wait, whose pauses are timers. Node's timers round a pause under 1 ms up to 1 ms. This
   * process's other transactions still queue behind the waiting one (one connection holds one
   * transaction at a time); each counts its wait from when it was asked for, so one queued behind a
   * waiting write is answered or refused within the same bound.
   */
  const begin = (deadline: number): Promise<void> | undefined => {
    const busy = tryBegin();
    return busy ? waitToBegin(busy, deadline) : undefined;
  };
  // Once the connection is open, its reads meet no lock: in WAL mode it holds a shared lock on the
  // file from its first read on, which keeps anyone from locking the file whole.
  const beginRead = () => void statement("BEGIN").run();

  /**
   * `open` starts the transaction, given the deadline for another process's lock (`waitMs` from
   * this call, not from its turn in the queue); a promise from it is a wait for that lock.
   * `waitMs` is also the wait the refusal's message names.
   */
  const transaction = <T>(open: (deadline: number) => Promise<void> | undefined, work: (tx: Tx) => Promise<T>, waitMs = BUSY_TIMEOUT_MS): Promise<T> => {
    if (inside.getStore()) return work(tx);
    const deadline = performance.now() + waitMs;
    unfinished++;
    return queued(() =>
      inside.run(true, async () => {
        try {
          refuseWhenFileGone();
          const waiting = open(deadline);
          if (waiting) await waiting;
          writing = open !== beginRead;
          const result = await work(tx);
          statement("COMMIT").run();
          return result;
        } catch (error) {
          if (connection.inTransaction) statement("ROLLBACK").run();
          throw unavailableWhenBusy(error, "sqlite", waitMs);
        } finally {
          unfinished--;
          pushBackIdleCheckpoint();
          writing = false;
        }
      }),
    );
  };

  /**
   * Group commit (Database.writeGrouped). Every commit costs the same whatever it holds: the
   * write lock, the WAL frames of the pages it touched, and the search index's terms, which FTS5
   * keeps in memory until the transaction ends and then writes out as a new segment. Concurrent
   * appends (16 HTTP clients) each paid all of it; grouped, they pay it once. A group is what
   * arrived while the process was busy: it gathers until the event loop's next check phase
   * (setImmediate: after every request whose bytes were waiting was read). Waiting for that turn
   * costs a lone writer (a stdio server's one client) tens of microseconds, so a write runs at
   * once unless writes came together lately: a second one in the turn of one that ran at once,
   * or the last group held more than one. No savepoint per member: FTS5 writes its pending terms
   * out at every SAVEPOINT, which costs what a commit does. Instead, a member that throws rolls
   * the group back and every member runs again alone, in order.
   */
  type Member = { work: (tx: Tx) => Promise<unknown>; settle: (outcome: { value: unknown } | { error: unknown }) => void };
  let group: Member[] | null = null;
  /** A grouped write ran at once in this turn of the event loop (cleared at the turn's check phase). */
  let ranThisTurn = false;
  /** Grouped writes came together lately: each waits for its turn's group. */
  let together = false;
  /** Thrown inside a group's transaction when a member threw: roll back, then run each alone. */
  const memberFailed = Symbol("a member of the group threw");
  const alone = (member: Member) =>
    transaction(begin, member.work).then(
      (value) => member.settle({ value }),
      (error: unknown) => member.settle({ error }),
    );
  const commitGroup = async () => {
    const members = group!;
    group = null;
    together = members.length > 1;
    if (members.length === 1) return alone(members[0]);
    const values: unknown[] = [];
    try {
      await transaction(
        begin,
        async (tx) => {
          for (const member of members) values.push(await member.work(tx).catch(() => Promise.reject(memberFailed)));
        },
      );
    } catch (error) {
      if (error === memberFailed) for (const member of members) await alone(member);
      // The lock, or the commit itself, failed: for every member alike.
      else for (const member of members) member.settle({ error });
      return;
    }
    members.forEach((member, index) => member.settle({ value: values[index] }));
  };
  const writeGrouped = <T>(work: (tx: Tx) => Promise<T>): Promise<T> => {
    if (inside.getStore()) return work(tx);
    if (!together && !ranThisTurn) {
      ranThisTurn = true;
      setImmediate(() => (ranThisTurn = false));
      return transaction(begin, work);
    }
    together = true;
    return new Promise<T>((resolve, reject) => {
      if (!group) {
        group = [];
        setImmediate(() => void commitGroup());
      }
      group.push({ work, settle: (outcome) => ("error" in outcome ? reject(outcome.error) : resolve(outcome.value as T)) });
    });
  };

  return {
    engine: "sqlite",
    write: (work, { waitMs = BUSY_TIMEOUT_MS }: WriteOptions = {}) => transaction(begin, work, waitMs),
    writeGrouped,
    read: (work) => transaction(beginRead, work),
    // Rows as PostgreSQL gives them: a statement without RETURNING answers none (all() would refuse it).
    writeStatement: <Row>(text: string, params: Params = []) =>
      transaction(begin, async (tx) => (statement(text).reader ? tx.all<Row>(text, params) : (await tx.run(text, params), []))),
    insideWrite: () => writing,
    // Outside the queue: a statement of its own, or one more in the read transaction it is called in.
    changeStamp: async () => {
      if (writing) return null;
      const [dataVersion, changes] = stampStatement.get() as [number, number];
      return `${connectionId}.${dataVersion}.${changes}`;
    },
    ping: async () => {
      refuseWhenFileGone();
      statement("SELECT 1").get();
    },
    close: async () => {
      clearTimeout(idleTimer);
      connection.close();
    },
  };
}
