import "server-only";
import { BUSY_TIMEOUT_MS, read, write } from "../database";
import { allocatedIn } from "./rows";

/** What pruning keeps: the last KEEP_ROWS changes, and none older than KEEP_MS. */
export const KEEP_ROWS = 100_000;
export const KEEP_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes changes beyond the last `keepRows` or older than `keepMs`, in short write transactions
 * with the event loop's turn between them.
 * The feed calls it when it starts and every ten minutes while it runs, waiting at most `waitMs`
 * for SQLite's write lock (then Unavailable, busy); returns how many went.
 */
export async function pruneChanges({ keepRows = KEEP_ROWS, keepMs = KEEP_MS, now = Date.now(), waitMs = BUSY_TIMEOUT_MS } = {}): Promise<number> {
  // created_at is CURRENT_TIMESTAMP (UTC): this form compares as text on SQLite and as a timestamp on PostgreSQL.
  const oldEnough = new Date(now - keepMs).toISOString().replace("T", " ").slice(0, 19);
  const { cutoff, beyondCount } = await read(async (tx) => {
    const latest = await allocatedIn(tx);
    // Seqs grow with time, so the first recent row marks the age cutoff; the scan stops there.
    const firstRecent = (await tx.get<{ seq: number }>("SELECT seq FROM changes WHERE created_at >= ? ORDER BY seq LIMIT 1", [oldEnough]))?.seq;
    return { cutoff: Math.max(latest - keepRows, firstRecent === undefined ? latest : firstRecent - 1), beyondCount: latest - keepRows };
  });
  let deleted = 0;
  for (;;) {
    // At most 10,000 rows per transaction, so the write lock is never held for long. Within the
    // cutoff a row still goes only by count or by its own age: on PostgreSQL a transaction that
    // was writing during the read above (its seq below the cutoff, its row not yet visible) may
    // commit before this delete, and its change, minutes old at most, must reach the feeds.
    const batch = await write(
      (tx) =>
        tx.run("DELETE FROM changes WHERE seq <= ? AND seq <= (SELECT MIN(seq) FROM changes) + 9999 AND (seq <= ? OR created_at < ?)", [cutoff, beyondCount, oldEnough]),
      { waitMs },
    );
    deleted += batch;
    if (batch === 0) return deleted;
    // SQLite's statements run on this thread: without a turn of the event loop between batches,
    // ten million rows kept a starting server from answering anything for minutes.
    await new Promise((resolve) => setImmediate(resolve));
  }
}
