import "server-only";
import { databaseUrl } from "../config";
import { database, read } from "../database";
import { Unavailable } from "../errors";
import { pruneChanges } from "./prune";
import { allocatedIn, rowsAfter, SNAPSHOT, snapshotOf, stillRunning, type Snapshot } from "./rows";
import { matches, type Change, type ChangeFilter } from "./types";

/**
 * The change feed of one server process. Triggers append a row to `changes` for every write,
 * whichever process made it; this module only reads them (and prunes old ones), and only while
 * anyone is subscribed. New rows are read once and fanned out to every subscriber, so an open
 * page costs no query of its own. How the feed learns that something was written depends on
 * the engine:
 *
 * - SQLite: a timer checks every CHECK_INTERVAL_MS whether the database changed (PRAGMA
 *   data_version for other connections, total_changes() for this process's own), which touches
 *   no table; only when it did are the new rows read.
 * - PostgreSQL: a dedicated connection LISTENs on NOTIFY_CHANNEL, which a trigger notifies at
 *   the commit of every transaction that appended a change (prisma/postgres/migrations/
 *   *_change_feed_triggers), from any instance, stdio process or CLI. Each notification reads the
 *   new rows. The connection comes back after the server restarts (with backoff) and then reads
 *   what it missed; a slow poll (SAFETY_POLL_MS) covers anything else.
 *
 * On PostgreSQL seqs come from a sequence and transactions commit in any order: seq 12 may
 * become visible after 13. The feed hands changes out in seq order and never jumps a gap while
 * a transaction that may still fill it is running (see `settle`), so a subscriber's cursor is
 * always a safe point to resume after.
 */

/**
 * PostgreSQL: the longest a gap is held back. Past it the feed moves on (and says so): a
 * transaction kept open this long after writing a change would otherwise stall every
 * subscriber; its change stays in the table for replay.
 */
export const GAP_MAX_HOLD_MS = 10_000;
/** PostgreSQL: how long latestChangeSeq waits for running writers to settle the newest seq. */
const SETTLE_MAX_WAIT_MS = 2_000;
const SETTLE_POLL_MS = 10;
export const PRUNE_EVERY_MS = 10 * 60 * 1000;
const READ_BATCH = 1000;

export type FeedEvent = { kind: "change"; change: Change } | { kind: "reset"; seq: number; reason: string };
export type Listener = (event: FeedEvent) => void;

/** Counters for the benchmark: how often the feed checked the database and how often it read rows. */
export type FeedStats = { subscribers: number; checks: number; reads: number; rowsRead: number; pruned: number };

export type Subscriber = { filter: ChangeFilter; listener: Listener; cursor: number };

/** What follows the database while anyone is subscribed: SQLite's timer or PostgreSQL's listener. */
export type Follower = { ready: Promise<void>; stop: () => void };

/**
 * PostgreSQL: the newest seq one read saw past a gap, and the writers running at that read.
 * Once none of them runs any more, every seq up to `horizon` that will ever commit has.
 */
type Sighting = { horizon: number; writers: string[]; at: number };

export type FeedState = {
  /** The database followed; another URL (tests) starts over. */
  url: string;
  subscribers: Set<Subscriber>;
  follower: Follower | null;
  /** Unregisters the follower's stop from the database's close (lib/database's whenDatabaseCloses). */
  releaseCloseHook: (() => void) | null;
  /** The highest seq fanned out; every change up to it was handed out (or is gone for good). */
  last: number;
  /** PostgreSQL: reads that saw past a gap still held back. */
  sightings: Sighting[];
  /** Drains and replays run one at a time: a new subscriber joins between two fan-outs. */
  turn: Promise<unknown>;
  draining: boolean;
  drainAgain: boolean;
  lastPruneAt: number;
  /** PostgreSQL: the highest seq known settled (latestChangeSeq's starting point). */
  settled: number;
  stats: Omit<FeedStats, "subscribers">;
};

// One feed per process, whichever bundle (Next's route, a test, a bench) imported this module.
const globalForFeed = globalThis as unknown as { batonChangeFeed?: FeedState };
export function feed(): FeedState {
  const url = databaseUrl();
  const held = globalForFeed.batonChangeFeed;
  if (held && held.url === url) return held;
  if (held) stop(held);
  globalForFeed.batonChangeFeed = {
    url,
    subscribers: new Set(),
    follower: null,
    releaseCloseHook: null,
    last: 0,
    sightings: [],
    turn: Promise.resolve(),
    draining: false,
    drainAgain: false,
    lastPruneAt: 0,
    settled: 0,
    stats: { checks: 0, reads: 0, rowsRead: 0, pruned: 0 },
  };
  return globalForFeed.batonChangeFeed;
}

/**
 * The seq a page reads before its data and subscribes after: every change up to it has
 * committed (or never will). SQLite: the latest change. PostgreSQL: the newest visible change
 * once no transaction that was running when it was read can still commit a lower seq; when
 * writers keep running past SETTLE_MAX_WAIT_MS, the last seq known settled (a subscriber then
 * replays a little more than it needed).
 */
export async function latestChangeSeq(): Promise<number> {
  if (database().engine === "sqlite") return read(allocatedIn);
  const state = feed();
  const base = state.settled;
  const seen = await read((tx) =>
    tx.get<{ snapshot: string; newest: number | null; above: number }>(
      `SELECT CAST(pg_current_snapshot() AS TEXT) AS snapshot, MAX(seq) AS newest, COUNT(*) AS above FROM changes WHERE seq > ?`,
      [base],
    ),
  );
  const newest = seen?.newest ?? base;
  const writers = [...snapshotOf(seen!.snapshot).running];
  // Nothing running, or no gap above a seq already known settled: nothing lower can still come.
  let settled = writers.length === 0 || seen!.above === newest - base;
  for (const deadline = Date.now() + SETTLE_MAX_WAIT_MS; !settled && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
    const now = snapshotOf((await read((tx) => tx.get<{ snapshot: string }>(SNAPSHOT)))!.snapshot);
    settled = writers.every((xid) => !stillRunning(now, xid));
  }
  if (!settled) return base;
  state.settled = Math.max(state.settled, newest);
  return newest;
}

export function deliver(subscriber: Subscriber, event: FeedEvent): void {
  try {
    subscriber.listener(event);
  } catch (error) {
    // One broken subscriber must not stop the others.
    console.error("baton: a change feed subscriber failed and was removed", error);
    unsubscribe(subscriber);
  }
}

function fanOut(state: FeedState, changes: Change[]): void {
  for (const change of changes) {
    for (const subscriber of state.subscribers) {
      if (change.seq <= subscriber.cursor) continue;
      subscriber.cursor = change.seq;
      if (matches(change, subscriber.filter)) deliver(subscriber, { kind: "change", change });
    }
    state.last = change.seq;
  }
  state.settled = Math.max(state.settled, state.last);
}

/**
 * PostgreSQL: which of `rows` (read in `snapshot`, in seq order) may be handed out now. A row
 * right after the last one handed out always may; one past a gap only once the gap is settled:
 * the writers running at an earlier read that saw that far have all finished, so the missing
 * seqs belong to rolled-back transactions. A read while no writer runs settles at once.
 */
function settle(state: FeedState, rows: Change[], snapshot: Snapshot): { ready: Change[]; held: boolean } {
  const now = Date.now();
  let settledTo = state.last;
  state.sightings = state.sightings.filter((sighting) => {
    const done = sighting.writers.every((xid) => !stillRunning(snapshot, xid));
    if (!done && now - sighting.at < GAP_MAX_HOLD_MS) return true;
    if (!done) console.error(`baton: the change feed stopped waiting for seqs below ${sighting.horizon} after ${GAP_MAX_HOLD_MS / 1000} s; a transaction still open may write one later (replay from the changes table still has it)`);
    settledTo = Math.max(settledTo, sighting.horizon);
    return false;
  });
  const newest = rows.at(-1)?.seq ?? 0;
  if (snapshot.running.size === 0) settledTo = Math.max(settledTo, newest);
  const ready: Change[] = [];
  let last = state.last;
  for (const row of rows) {
    if (row.seq !== last + 1 && row.seq > settledTo) break;
    ready.push(row);
    last = row.seq;
  }
  const held = ready.length < rows.length;
  if (held && newest > (state.sightings.at(-1)?.horizon ?? 0)) state.sightings.push({ horizon: newest, writers: [...snapshot.running], at: now });
  return { ready, held };
}

/** Reads every change after the last one fanned out and hands each subscriber those it wants. Runs in the feed's turn. */
export async function drain(state: FeedState): Promise<{ held: boolean }> {
  for (;;) {
    const { rows, snapshot } = await read(async (tx) => ({
      snapshot: tx.engine === "postgres" ? snapshotOf((await tx.get<{ snapshot: string }>(SNAPSHOT))!.snapshot) : null,
      rows: await rowsAfter(tx, state.last, READ_BATCH),
    }));
    state.stats.reads++;
    state.stats.rowsRead += rows.length;
    const { ready, held } = snapshot ? settle(state, rows, snapshot) : { ready: rows, held: false };
    fanOut(state, ready);
    if (held || rows.length < READ_BATCH) return { held };
  }
}

/** Runs `work` after every drain and replay already asked for. */
export function inTurn<T>(state: FeedState, work: () => Promise<T>): Promise<T> {
  const run = state.turn.then(work, work);
  state.turn = run.catch(() => undefined);
  return run;
}

/**
 * Asks for a drain; asks made while one runs are answered by one more. `onHeld` runs when a
 * gap was held back (PostgreSQL), to look again soon.
 */
export function requestDrain(state: FeedState, onHeld?: () => void): void {
  if (state.draining) {
    state.drainAgain = true;
    return;
  }
  state.draining = true;
  void inTurn(state, async () => {
    let held = false;
    try {
      do {
        state.drainAgain = false;
        ({ held } = await drain(state));
      } while (state.drainAgain && state.follower);
    } catch (error) {
      console.error("baton: the change feed could not read the database; retrying", error);
    } finally {
      state.draining = false;
    }
    if (held && state.follower) onHeld?.();
    if (state.follower && Date.now() - state.lastPruneAt >= PRUNE_EVERY_MS) await pruneSoon(state);
  });
}

export async function pruneSoon(state: FeedState): Promise<void> {
  state.lastPruneAt = Date.now();
  // Pruning is housekeeping: if other processes keep SQLite's write lock, skip it rather than
  // hold up this feed for the whole busy timeout (refused as Unavailable; so is a database away).
  try {
    state.stats.pruned += await pruneChanges({ waitMs: 50 });
  } catch (error) {
    if (!(error instanceof Unavailable)) console.error("baton: could not prune the change feed; trying again later", error);
  }
}

export function stop(state: FeedState): void {
  state.follower?.stop();
  state.follower = null;
  state.releaseCloseHook?.();
  state.releaseCloseHook = null;
  state.sightings = [];
}

export function unsubscribe(subscriber: Subscriber): void {
  const state = feed();
  if (state.subscribers.delete(subscriber) && state.subscribers.size === 0) stop(state);
}

