import "server-only";
import { databaseUrl } from "../config";
import { BUSY_TIMEOUT_MS, database, listen, read, write, type Listening, type Tx } from "../database";
import { isoOf } from "../iso-date";
import type { Change, ChangeSubject } from "./types";

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
export const CHECK_INTERVAL_MS = 100;
/** The channel PostgreSQL's `changes_notify` trigger notifies. */
export const NOTIFY_CHANNEL = "baton_changes";
/** PostgreSQL: read even without a notification this often (a notification lost while reconnecting). */
export const SAFETY_POLL_MS = 5_000;
/** PostgreSQL: how soon a gap held back is looked at again. */
const GAP_RECHECK_MS = 50;
/**
 * PostgreSQL: the longest a gap is held back. Past it the feed moves on (and says so): a
 * transaction kept open this long after writing a change would otherwise stall every
 * subscriber; its change stays in the table for replay.
 */
export const GAP_MAX_HOLD_MS = 10_000;
/** PostgreSQL: how long latestChangeSeq waits for running writers to settle the newest seq. */
const SETTLE_MAX_WAIT_MS = 2_000;
const SETTLE_POLL_MS = 10;
/** A subscriber further behind than this is told to refetch instead of replaying (cheaper for both). */
export const MAX_REPLAY = 10_000;
/** What pruning keeps: the last KEEP_ROWS changes, and none older than KEEP_MS. */
export const KEEP_ROWS = 100_000;
export const KEEP_MS = 24 * 60 * 60 * 1000;
const PRUNE_EVERY_MS = 10 * 60 * 1000;
const READ_BATCH = 1000;

export type ChangeFilter = {
  handoffId?: string;
  agentId?: number;
  /** Only these subjects (all when absent). */
  subjects?: readonly ChangeSubject[];
};

export type FeedEvent = { kind: "change"; change: Change } | { kind: "reset"; seq: number; reason: string };
export type Listener = (event: FeedEvent) => void;

/** Counters for the benchmark: how often the feed checked the database and how often it read rows. */
export type FeedStats = { subscribers: number; checks: number; reads: number; rowsRead: number; pruned: number };

export type Subscription = {
  /** The seq this subscriber is caught up to, matching or not: a safe point to resume after. */
  readonly cursor: number;
  close: () => void;
};

type Subscriber = { filter: ChangeFilter; listener: Listener; cursor: number };

type Row = {
  seq: number;
  subject: ChangeSubject;
  action: Change["action"];
  handoff_id: string | null;
  agent_id: number | null;
  entry_seq: number | null;
  created_at: string;
};

/** What follows the database while anyone is subscribed: SQLite's timer or PostgreSQL's listener. */
type Follower = { ready: Promise<void>; stop: () => void };

/**
 * PostgreSQL: the newest seq one read saw past a gap, and the writers running at that read.
 * Once none of them runs any more, every seq up to `horizon` that will ever commit has.
 */
type Sighting = { horizon: number; writers: string[]; at: number };

type FeedState = {
  /** The database followed; another URL (tests) starts over. */
  url: string;
  subscribers: Set<Subscriber>;
  follower: Follower | null;
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
function feed(): FeedState {
  const url = databaseUrl();
  const held = globalForFeed.batonChangeFeed;
  if (held && held.url === url) return held;
  held?.follower?.stop();
  globalForFeed.batonChangeFeed = {
    url,
    subscribers: new Set(),
    follower: null,
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

const changeOf = (row: Row): Change => ({
  seq: row.seq,
  subject: row.subject,
  action: row.action,
  handoffId: row.handoff_id,
  agentId: row.agent_id,
  entrySeq: row.entry_seq,
  at: isoOf(row.created_at),
});

export function matches(change: Change, filter: ChangeFilter): boolean {
  if (filter.handoffId !== undefined && change.handoffId !== filter.handoffId) return false;
  if (filter.agentId !== undefined && change.agentId !== filter.agentId) return false;
  if (filter.subjects && !filter.subjects.includes(change.subject)) return false;
  return true;
}

/**
 * The highest seq ever handed out, committed or not (0 before the first). On SQLite that is
 * the latest committed change: writers commit one at a time.
 */
async function allocatedIn(tx: Tx): Promise<number> {
  const row =
    tx.engine === "postgres"
      ? await tx.get<{ seq: number }>("SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS seq FROM changes_seq_seq")
      : await tx.get<{ seq: number }>("SELECT seq FROM sqlite_sequence WHERE name = 'changes'");
  return row?.seq ?? 0;
}

const rowsAfter = async (tx: Tx, after: number, limit: number) =>
  (await tx.all<Row>("SELECT seq, subject, action, handoff_id, agent_id, entry_seq, created_at FROM changes WHERE seq > ? ORDER BY seq LIMIT ?", [after, limit])).map(
    changeOf,
  );

/** PostgreSQL's `xmin:xmax:xip,…` snapshot: which writing transactions were running. */
type Snapshot = { xmax: bigint; running: Set<string> };
const snapshotOf = (text: string): Snapshot => {
  const [, xmax, running] = text.split(":");
  return { xmax: BigInt(xmax), running: new Set(running ? running.split(",") : []) };
};
const stillRunning = (snapshot: Snapshot, xid: string) => snapshot.running.has(xid) || BigInt(xid) >= snapshot.xmax;
const SNAPSHOT = "SELECT CAST(pg_current_snapshot() AS TEXT) AS snapshot";

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

function deliver(subscriber: Subscriber, event: FeedEvent): void {
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
async function drain(state: FeedState): Promise<{ held: boolean }> {
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
function inTurn<T>(state: FeedState, work: () => Promise<T>): Promise<T> {
  const run = state.turn.then(work, work);
  state.turn = run.catch(() => undefined);
  return run;
}

/**
 * Asks for a drain; asks made while one runs are answered by one more. `onHeld` runs when a
 * gap was held back (PostgreSQL), to look again soon.
 */
function requestDrain(state: FeedState, onHeld?: () => void): void {
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
    if (Date.now() - state.lastPruneAt >= PRUNE_EVERY_MS) await pruneSoon(state);
  });
}

async function pruneSoon(state: FeedState): Promise<void> {
  state.lastPruneAt = Date.now();
  // Pruning is housekeeping: if other processes keep SQLite's write lock, skip it rather than
  // hold up this feed for the whole busy timeout.
  try {
    state.stats.pruned += await pruneChanges({ waitMs: 50 });
  } catch (error) {
    if ((error as { code?: string }).code !== "SQLITE_BUSY") console.error("baton: could not prune the change feed; trying again later", error);
  }
}

/** SQLite: one statement that reads no table: whether any connection (data_version) or this one (total_changes) wrote. */
const probe = async () => {
  const row = await read((tx) => tx.get<{ v: number; c: number }>("SELECT data_version AS v, total_changes() AS c FROM pragma_data_version"));
  return `${row!.v}:${row!.c}`;
};

function followSqlite(state: FeedState): Follower {
  let timer: ReturnType<typeof setInterval> | null = null;
  let stopped = false;
  let version = "";
  let checking = false;
  const tick = async () => {
    if (checking) return;
    checking = true;
    try {
      state.stats.checks++;
      const now = await probe();
      if (now !== version) {
        version = now;
        requestDrain(state);
      } else if (Date.now() - state.lastPruneAt >= PRUNE_EVERY_MS) {
        void inTurn(state, () => pruneSoon(state));
      }
    } catch (error) {
      console.error("baton: the change feed could not read the database; retrying", error);
    } finally {
      checking = false;
    }
  };
  const ready = (async () => {
    // Version first: a write landing between the two is then seen by the first tick.
    version = await probe();
    const latest = await read(allocatedIn);
    if (stopped) return;
    state.last = latest;
    timer = setInterval(() => void tick(), CHECK_INTERVAL_MS);
    // The feed serves whoever is subscribed; it never keeps a process alive by itself.
    timer.unref?.();
  })();
  return {
    ready,
    stop: () => {
      stopped = true;
      if (timer) clearInterval(timer);
    },
  };
}

function followPostgres(state: FeedState): Follower {
  let stopped = false;
  let listening: Listening | null = null;
  let recheck: ReturnType<typeof setTimeout> | null = null;

  const check = () => {
    if (stopped) return;
    state.stats.checks++;
    requestDrain(state, () => {
      recheck ??= setTimeout(() => ((recheck = null), check()), GAP_RECHECK_MS);
      recheck.unref?.();
    });
  };

  const poll = setInterval(check, SAFETY_POLL_MS);
  poll.unref?.();
  const ready = (async () => {
    // Listen first: a change committed after it is notified, one before it is below `last`.
    const opened = await listen({ url: state.url, channel: NOTIFY_CHANNEL, label: "the change feed", onNotify: check });
    if (stopped) return opened.stop();
    listening = opened;
    const latest = await latestChangeSeq();
    if (!stopped) state.last = latest;
  })();
  return {
    ready,
    stop: () => {
      stopped = true;
      clearInterval(poll);
      if (recheck) clearTimeout(recheck);
      listening?.stop();
      listening = null;
    },
  };
}

function stop(state: FeedState): void {
  state.follower?.stop();
  state.follower = null;
  state.sightings = [];
}

function unsubscribe(subscriber: Subscriber): void {
  const state = feed();
  if (state.subscribers.delete(subscriber) && state.subscribers.size === 0) stop(state);
}

/**
 * Subscribes `listener` to changes matching `filter`. With `after`, the changes after that seq
 * are replayed first (before the promise resolves); if they are no longer all kept (or `after`
 * is from another database), a single `reset` event says to refetch everything instead.
 */
export async function subscribe(options: { after?: number; filter?: ChangeFilter }, listener: Listener): Promise<Subscription> {
  const state = feed();
  state.follower ??= database().engine === "postgres" ? followPostgres(state) : followSqlite(state);
  const follower = state.follower;
  const subscriber: Subscriber = { filter: options.filter ?? {}, listener, cursor: 0 };
  try {
    await follower.ready;
    await inTurn(state, async () => {
      // Up to date first, so the replay ends where the live changes start.
      await drain(state);
      const replay = await readReplay(options.after, state.last);
      subscriber.cursor = replay.cursor;
      if (replay.reset) deliver(subscriber, { kind: "reset", seq: replay.cursor, reason: replay.reset });
      for (const change of replay.changes) if (matches(change, subscriber.filter)) deliver(subscriber, { kind: "change", change });
      state.subscribers.add(subscriber);
    });
  } catch (error) {
    if (state.subscribers.size === 0 && state.follower === follower) stop(state);
    throw error;
  }
  return {
    get cursor() {
      return subscriber.cursor;
    },
    close: () => unsubscribe(subscriber),
  };
}

/**
 * What a new subscriber resuming after `after` is owed, read in one snapshot: the changes up to
 * `handedOut` (the feed's last fanned out; later ones reach it live), and the cursor it starts
 * at. An `after` beyond `handedOut` but not beyond any seq handed out by the database is a
 * settled seq another instance reported: the subscriber starts there.
 */
async function readReplay(after: number | undefined, handedOut: number): Promise<{ cursor: number; changes: Change[]; reset: string | null }> {
  if (after === undefined) return { cursor: handedOut, changes: [], reset: null };
  return read(async (tx) => {
    const allocated = await allocatedIn(tx);
    const oldest = (await tx.get<{ seq: number | null }>("SELECT MIN(seq) AS seq FROM changes"))!.seq;
    // Kept rows start at `oldest`; an empty table has kept nothing before `allocated`.
    const floor = oldest === null ? allocated : oldest - 1;
    if (after > allocated) return { cursor: handedOut, changes: [], reset: `seq ${after} is ahead of this database's latest change (${allocated})` };
    if (after < floor) return { cursor: handedOut, changes: [], reset: `changes up to seq ${floor} are no longer kept` };
    const changes = (await rowsAfter(tx, after, MAX_REPLAY + 1)).filter((change) => change.seq <= handedOut);
    if (changes.length > MAX_REPLAY) return { cursor: handedOut, changes: [], reset: `more than ${MAX_REPLAY} changes were missed` };
    return { cursor: Math.max(after, handedOut), changes, reset: null };
  });
}

/**
 * Deletes changes beyond the last `keepRows` or older than `keepMs`, in short write transactions.
 * The feed calls it when it starts and every ten minutes while it runs, waiting at most `waitMs`
 * for SQLite's write lock (then SQLITE_BUSY); returns how many went.
 */
export async function pruneChanges({ keepRows = KEEP_ROWS, keepMs = KEEP_MS, now = Date.now(), waitMs = BUSY_TIMEOUT_MS } = {}): Promise<number> {
  const cutoff = await read(async (tx) => {
    const latest = await allocatedIn(tx);
    // created_at is CURRENT_TIMESTAMP (UTC): this form compares as text on SQLite and as a timestamp on PostgreSQL.
    const oldEnough = new Date(now - keepMs).toISOString().replace("T", " ").slice(0, 19);
    // Seqs grow with time, so the first recent row marks the age cutoff; the scan stops there.
    const firstRecent = (await tx.get<{ seq: number }>("SELECT seq FROM changes WHERE created_at >= ? ORDER BY seq LIMIT 1", [oldEnough]))?.seq;
    return Math.max(latest - keepRows, firstRecent === undefined ? latest : firstRecent - 1);
  });
  let deleted = 0;
  for (;;) {
    // At most 10,000 rows per transaction, so the write lock is never held for long.
    const batch = await write((tx) => tx.run("DELETE FROM changes WHERE seq <= ? AND seq <= (SELECT MIN(seq) FROM changes) + 9999", [cutoff]), { waitMs });
    deleted += batch;
    if (batch === 0) return deleted;
  }
}

export function changeFeedStats(): FeedStats {
  const state = feed();
  return { subscribers: state.subscribers.size, ...state.stats };
}
