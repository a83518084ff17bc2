import "server-only";
import { lockRows, storedDate, write } from "../database";
import { Unavailable } from "../errors";

/**
 * How long a finished delivery (delivered, or failed after its day of retries) is kept with its
 * attempts: its payload carries a whole entry, and a busy project's hooks queue thousands a day.
 * 30 days, as Stripe keeps its webhook events: long enough to look back at a receiver's outage
 * reported weeks later and Redeliver what it missed. A delivery still to be sent, or under a
 * lease, is never pruned, however old.
 */
export const KEEP_FINISHED_DELIVERIES_MS = 30 * 24 * 60 * 60 * 1000;
/** How often the running server prunes (and once as its dispatcher starts). */
export const PRUNE_DELIVERIES_EVERY_MS = 10 * 60 * 1000;
/** Deliveries deleted per transaction (their attempts go with them): SQLite's write lock is held a moment at a time. */
const PRUNE_BATCH = 500;

/**
 * Deletes finished deliveries that finished before `keepMs` ago, with their attempts, in short
 * transactions with the event loop's turn between them; answers how many went. A delivery
 * finishes when it is delivered (delivered_at) or gives up (next_attempt_at is set to that
 * moment); Redeliver makes it pending again, and it is kept until it finishes once more. On
 * PostgreSQL rows another instance is pruning (or sending, or redelivering) right now are skipped,
 * not waited for, and a row counts for the instance whose statement deleted it. Waits at most
 * `waitMs` for SQLite's write lock (then Unavailable, busy).
 */
export async function pruneDeliveries({
  keepMs = KEEP_FINISHED_DELIVERIES_MS,
  now = Date.now(),
  waitMs,
  signal,
}: { keepMs?: number; now?: number; waitMs?: number; signal?: AbortSignal } = {}): Promise<number> {
  const cutoff = storedDate(new Date(now - keepMs));
  let deleted = 0;
  // Stopped (the server shuts down): the rest waits for the next start.
  while (!signal?.aborted) {
    const batch = await write(
      (tx) =>
        // next_attempt_at first: the (status, next_attempt_at) index reads only rows older than the
        // cutoff (a delivered row's attempt was due before it was delivered).
        tx.run(
          `DELETE FROM webhook_deliveries WHERE id IN (
             SELECT id FROM webhook_deliveries
             WHERE status IN ('delivered', 'failed') AND next_attempt_at < ? AND COALESCE(delivered_at, next_attempt_at) < ?
               AND (claimed_until IS NULL OR claimed_until <= ?)
             LIMIT ?${lockRows(tx, { skipLocked: true })}
           )`,
          [cutoff, cutoff, storedDate(new Date(now)), PRUNE_BATCH],
        ),
      { waitMs },
    );
    deleted += batch;
    if (batch < PRUNE_BATCH) return deleted;
    // SQLite's statements run on this thread: the server answers between two batches.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return deleted;
}

/** Prunes now and every `intervalMs` (the running server's dispatcher starts it); `stop` resolves once a prune under way has stopped. */
export function startDeliveryPruning(intervalMs: number): { stop: () => Promise<void> } {
  const stopping = new AbortController();
  let pruning: Promise<void> | null = null;
  const prune = () => {
    // A prune slower than the interval is not joined by the next one.
    pruning ??= (async () => {
      try {
        // Housekeeping: while other processes keep SQLite's write lock, skip it rather than wait (Unavailable).
        await pruneDeliveries({ waitMs: 50, signal: stopping.signal });
      } catch (error) {
        if (!(error instanceof Unavailable)) console.error("baton: could not prune old webhook deliveries; trying again later", error);
      } finally {
        pruning = null;
      }
    })();
  };
  const first = setImmediate(prune);
  const timer = setInterval(prune, intervalMs);
  timer.unref?.();
  return {
    stop: async () => {
      stopping.abort();
      clearImmediate(first);
      clearInterval(timer);
      await pruning;
    },
  };
}
