import "server-only";
import { BUSY_TIMEOUT_MS, read, sql, write, type Sql } from "../sqlite";
import type { Change, ChangeSubject } from "./types";

/**
 * The change feed of one server process. SQLite triggers append a row to `changes` for every
 * write, whichever process made it; this module only reads them (and prunes old ones). While
 * anyone is subscribed, one timer checks every CHECK_INTERVAL_MS whether the database changed
 * (PRAGMA data_version for other connections, total_changes() for this process's own), which
 * touches no table; only when it did are the new rows read, once, and fanned out to every
 * subscriber. An open page therefore costs no query of its own.
 */
export const CHECK_INTERVAL_MS = 100;
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

type FeedState = {
  subscribers: Set<Subscriber>;
  timer: ReturnType<typeof setInterval> | null;
  /** The highest seq fanned out. */
  last: number;
  /** data_version and total_changes() at the last check. */
  version: string;
  lastPruneAt: number;
  stats: Omit<FeedStats, "subscribers">;
};

// One feed per process, whichever bundle (Next's route, a test, a bench) imported this module.
const globalForFeed = globalThis as unknown as { batonChangeFeed?: FeedState };
function feed(): FeedState {
  globalForFeed.batonChangeFeed ??= {
    subscribers: new Set(),
    timer: null,
    last: 0,
    version: "",
    lastPruneAt: 0,
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
  // CURRENT_TIMESTAMP is UTC without a zone: `2026-11-22 07:13:08`.
  at: `${row.created_at.replace(" ", "T")}Z`,
});

export function matches(change: Change, filter: ChangeFilter): boolean {
  if (filter.handoffId !== undefined && change.handoffId !== filter.handoffId) return false;
  if (filter.agentId !== undefined && change.agentId !== filter.agentId) return false;
  if (filter.subjects && !filter.subjects.includes(change.subject)) return false;
  return true;
}

const latestIn = (tx: Sql) =>
  (tx.statement("SELECT seq FROM sqlite_sequence WHERE name = 'changes'").get() as { seq: number } | undefined)?.seq ?? 0;

/** The seq of the latest change written (0 before the first). A page reads it before its data, then subscribes after it. */
export function latestChangeSeq(): number {
  return latestIn(sql());
}

const rowsAfter = (tx: Sql, after: number, limit: number) =>
  (
    tx
      .statement("SELECT seq, subject, action, handoff_id, agent_id, entry_seq, created_at FROM changes WHERE seq > ? ORDER BY seq LIMIT ?")
      .all(after, limit) as Row[]
  ).map(changeOf);

/** One statement that reads no table: whether any connection (data_version) or this one (total_changes) wrote. */
const probe = () => {
  const { v, c } = sql().statement("SELECT data_version AS v, total_changes() AS c FROM pragma_data_version").get() as { v: number; c: number };
  return `${v}:${c}`;
};

function deliver(subscriber: Subscriber, event: FeedEvent): void {
  try {
    subscriber.listener(event);
  } catch (error) {
    // One broken subscriber must not stop the others.
    console.error("baton: a change feed subscriber failed and was removed", error);
    unsubscribe(subscriber);
  }
}

/** Reads every change after the last one fanned out and hands each subscriber those it wants. */
function drain(state: FeedState): void {
  for (;;) {
    const changes = rowsAfter(sql(), state.last, READ_BATCH);
    state.stats.reads++;
    state.stats.rowsRead += changes.length;
    for (const change of changes) {
      for (const subscriber of state.subscribers) {
        if (change.seq <= subscriber.cursor) continue;
        subscriber.cursor = change.seq;
        if (matches(change, subscriber.filter)) deliver(subscriber, { kind: "change", change });
      }
      state.last = change.seq;
    }
    if (changes.length < READ_BATCH) return;
  }
}

function tick(state: FeedState): void {
  try {
    state.stats.checks++;
    const version = probe();
    if (version !== state.version) {
      state.version = version;
      drain(state);
    }
    if (Date.now() - state.lastPruneAt >= PRUNE_EVERY_MS) pruneSoon(state);
  } catch (error) {
    console.error("baton: the change feed could not read the database; retrying", error);
  }
}

function pruneSoon(state: FeedState): void {
  state.lastPruneAt = Date.now();
  // Pruning is housekeeping: if other processes keep the write lock, skip it rather than block
  // this server's event loop for the whole busy timeout.
  try {
    state.stats.pruned += pruneChanges({ waitMs: 50 });
  } catch (error) {
    if ((error as { code?: string }).code !== "SQLITE_BUSY") throw error;
  }
}

function start(state: FeedState): void {
  // Version first: a write landing between the two is then seen by the first tick.
  state.version = probe();
  state.last = latestChangeSeq();
  state.timer = setInterval(() => tick(state), CHECK_INTERVAL_MS);
  // The feed serves whoever is subscribed; it never keeps a process alive by itself.
  state.timer.unref?.();
}

function stop(state: FeedState): void {
  if (state.timer) clearInterval(state.timer);
  state.timer = null;
}

function unsubscribe(subscriber: Subscriber): void {
  const state = feed();
  if (state.subscribers.delete(subscriber) && state.subscribers.size === 0) stop(state);
}

/**
 * Subscribes `listener` to changes matching `filter`. With `after`, the changes after that seq
 * are replayed first (synchronously, before this returns); if they are no longer all kept (or
 * `after` is from another database), a single `reset` event says to refetch everything instead.
 */
export function subscribe(options: { after?: number; filter?: ChangeFilter }, listener: Listener): Subscription {
  const state = feed();
  if (!state.timer) start(state);
  const subscriber: Subscriber = { filter: options.filter ?? {}, listener, cursor: 0 };
  const after = options.after;
  let replay: { latest: number; changes: Change[]; reset: string | null };
  try {
    replay = readReplay(after);
  } catch (error) {
    if (state.subscribers.size === 0) stop(state);
    throw error;
  }
  subscriber.cursor = replay.latest;
  if (replay.reset) deliver(subscriber, { kind: "reset", seq: replay.latest, reason: replay.reset });
  for (const change of replay.changes) if (matches(change, subscriber.filter)) deliver(subscriber, { kind: "change", change });
  state.subscribers.add(subscriber);
  return {
    get cursor() {
      return subscriber.cursor;
    },
    close: () => unsubscribe(subscriber),
  };
}

/** What a new subscriber resuming after `after` is owed, read in one snapshot with the latest seq. */
function readReplay(after: number | undefined): { latest: number; changes: Change[]; reset: string | null } {
  return read((tx) => {
    const latest = latestIn(tx);
    if (after === undefined) return { latest, changes: [] as Change[], reset: null };
    const oldest = (tx.statement("SELECT min(seq) AS seq FROM changes").get() as { seq: number | null }).seq;
    // Kept rows start at `oldest`; an empty table has kept nothing before `latest`.
    const floor = oldest === null ? latest : oldest - 1;
    if (after > latest) return { latest, changes: [], reset: `seq ${after} is ahead of this database's latest change (${latest})` };
    if (after < floor) return { latest, changes: [], reset: `changes up to seq ${floor} are no longer kept` };
    const changes = rowsAfter(tx, after, MAX_REPLAY + 1);
    if (changes.length > MAX_REPLAY) return { latest, changes: [], reset: `more than ${MAX_REPLAY} changes were missed` };
    return { latest, changes, reset: null };
  });
}

/**
 * Deletes changes beyond the last `keepRows` or older than `keepMs`, in short write transactions.
 * The feed calls it when it starts and every ten minutes while it runs, waiting at most `waitMs`
 * for the write lock (then SQLITE_BUSY); returns how many went.
 */
export function pruneChanges({ keepRows = KEEP_ROWS, keepMs = KEEP_MS, now = Date.now(), waitMs = BUSY_TIMEOUT_MS } = {}): number {
  const cutoff = read((tx) => {
    const latest = latestIn(tx);
    const oldEnough = new Date(now - keepMs).toISOString().replace("T", " ").slice(0, 19);
    // Seqs grow with time, so the first recent row marks the age cutoff; the scan stops there.
    const firstRecent = (tx.statement("SELECT seq FROM changes WHERE created_at >= ? ORDER BY seq LIMIT 1").get(oldEnough) as { seq: number } | undefined)?.seq;
    return Math.max(latest - keepRows, firstRecent === undefined ? latest : firstRecent - 1);
  });
  let deleted = 0;
  for (;;) {
    // At most 10,000 rows per transaction, so the write lock is never held for long.
    const batch = write((tx) => tx.statement("DELETE FROM changes WHERE seq <= min(?, (SELECT min(seq) FROM changes) + 9999)").run(cutoff).changes, { waitMs });
    deleted += batch;
    if (batch === 0) return deleted;
  }
}

export function changeFeedStats(): FeedStats {
  const state = feed();
  return { subscribers: state.subscribers.size, ...state.stats };
}
