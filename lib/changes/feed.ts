import "server-only";
import { database, read, whenDatabaseCloses } from "../database";
import { deliver, drain, feed, inTurn, stop, unsubscribe, type FeedStats, type Listener, type Subscriber } from "./fan-out";
import { matches, type ChangeFilter } from "./types";
import { followPostgres } from "./follow-postgres";
import { followSqlite } from "./follow-sqlite";
import { allocatedIn, rowsAfter } from "./rows";
import type { Change } from "./types";

/**
 * The change feed's door for the rest of Baton: subscribing (with a replay of what a resuming
 * subscriber missed) and the feed's counters. How the feed follows the database and hands changes
 * out is in fan-out.ts and the two followers (follow-sqlite.ts, follow-postgres.ts); reading and
 * pruning the table in rows.ts and prune.ts.
 */
/** A subscriber further behind than this is told to refetch instead of replaying (cheaper for both). */
export const MAX_REPLAY = 10_000;

export type Subscription = {
  /** The seq this subscriber is caught up to, matching or not: a safe point to resume after. */
  readonly cursor: number;
  close: () => void;
};

/**
 * Subscribes `listener` to changes matching `filter`. With `after`, the changes after that seq
 * are replayed first (before the promise resolves); if they are no longer all kept (or `after`
 * is from another database), a single `reset` event says to refetch everything instead.
 */
export async function subscribe(options: { after?: number; filter?: ChangeFilter }, listener: Listener): Promise<Subscription> {
  const state = feed();
  if (!state.follower) {
    state.follower = database().engine === "postgres" ? followPostgres(state) : followSqlite(state);
    // Subscribers stay; the next subscription after a reopen follows again.
    state.releaseCloseHook = whenDatabaseCloses(() => stop(state));
  }
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
 * Up to `limit` changes after `after` and not past `upTo`, oldest first, read from the table: for a
 * reader further behind than a replay reaches (the webhook dispatcher after a long stop or a bulk
 * import), once the feed told it so with a `reset` whose seq is `upTo`. `goneUpTo` names the last
 * seq of changes after `after` that are no longer kept (pruned), or is null.
 */
export async function changesAfter(after: number, upTo: number, limit: number): Promise<{ changes: Change[]; goneUpTo: number | null }> {
  return read(async (tx) => {
    const oldest = (await tx.get<{ seq: number | null }>("SELECT MIN(seq) AS seq FROM changes"))!.seq;
    const floor = Math.min(oldest === null ? upTo : oldest - 1, upTo);
    const changes = (await rowsAfter(tx, after, limit)).filter((change) => change.seq <= upTo);
    return { changes, goneUpTo: after < floor ? floor : null };
  });
}

export function changeFeedStats(): FeedStats {
  const state = feed();
  return { subscribers: state.subscribers.size, ...state.stats };
}
