import "server-only";
import { entryChangesOfThreadAfter, type Change } from "../changes";
import { databaseNow, lockRows, read, storedDate, write, type Tx } from "../database";
import { enqueue, hooksIn } from "./enqueue";
import { eventsOfChange, mayDeliver } from "./events";
import type { AttemptResult } from "./send";

/**
 * The webhook tables' queue: the cursor into the change feed, the deliveries it enqueues, claims
 * (leases written into the rows), hand-backs and the record of each attempt. The dispatcher
 * (dispatcher.ts) drives it; every statement on webhook_cursor, webhook_deliveries,
 * webhook_attempts and a hook's failure count is here.
 */

/** The cursor row, locked for this transaction; created at `present` when missing. */
async function cursorIn(tx: Tx, present: number): Promise<number> {
  const locked = `SELECT seq FROM webhook_cursor WHERE id = 1${lockRows(tx)}`;
  let row = await tx.get<{ seq: number }>(locked);
  if (!row) {
    // Two instances starting together on a new database: one row, whichever inserts first.
    await tx.run("INSERT INTO webhook_cursor (id, seq) VALUES (1, ?) ON CONFLICT (id) DO NOTHING", [present]);
    row = await tx.get<{ seq: number }>(locked);
  }
  return row!.seq;
}

/** Where the dispatchers stand in the change feed, or null before any ran on this database. */
export async function storedCursor(): Promise<number | null> {
  return (await read((tx) => tx.get<{ seq: number }>("SELECT seq FROM webhook_cursor WHERE id = 1")))?.seq ?? null;
}

/** The cursor of a database no dispatcher ran on: `present` (another instance may have set it first). */
export function startCursorAt(present: number): Promise<number> {
  return write((tx) => cursorIn(tx, present));
}

/** Past changes that are no longer kept: the cursor moves to `seq` (never back). */
export async function skipCursorTo(seq: number): Promise<void> {
  await write(async (tx) => {
    await cursorIn(tx, seq);
    await tx.run("UPDATE webhook_cursor SET seq = CASE WHEN seq < CAST(? AS INTEGER) THEN CAST(? AS INTEGER) ELSE seq END WHERE id = 1", [seq, seq]);
  });
}

/**
 * Turns changes (in seq order) into deliveries and moves the cursor past them, atomically, in one
 * transaction; a change already processed (by this or another process or instance) is skipped.
 * Changes that cannot deliver anything do not move the stored cursor: after a restart they are
 * read again and again make nothing. Without any hook, nothing is read but the cursor.
 */
export async function processChanges(changes: readonly Change[]): Promise<number> {
  const deliverable = changes.filter(mayDeliver);
  if (deliverable.length === 0) return 0;
  return write(async (tx) => {
    const cursor = await cursorIn(tx, deliverable[0].seq - 1);
    const fresh = deliverable.filter((change) => change.seq > cursor);
    if (fresh.length === 0) return 0;
    let added = 0;
    const hooks = await hooksIn(tx);
    if (hooks.length > 0) {
      for (const change of fresh) added += await enqueue(tx, hooks, await eventsOfChange(tx, change), change.at);
    }
    await tx.run("UPDATE webhook_cursor SET seq = ? WHERE id = 1", [fresh[fresh.length - 1].seq]);
    return added;
  });
}

/**
 * Before a close wipes a thread's entries: queues the events of its new entries no dispatcher has
 * turned into deliveries yet (changes after the stored cursor), which once the entries are gone
 * would make none (eventsOfChange finds no entry): an agent's last entry, closed right after,
 * never reached a hook. The caller holds the thread's row lock, so no entry of it is still being
 * written. The cursor row is locked as processChanges locks it: a dispatcher processing the same
 * changes either went first (the cursor is past them) or goes after (their entries are gone), so
 * each event is queued once. Nothing is read without a hook that wants entries, nor before any
 * dispatcher ran (hooks are about what happens once one runs).
 */
export async function queueEntryEventsBeforeWipeIn(tx: Tx, handoffId: string): Promise<void> {
  const hooks = await hooksIn(tx);
  if (!hooks.some((hook) => hook.wanted.events.some((event) => event === "entry.created" || event === "question.asked"))) return;
  const cursor = await tx.get<{ seq: number }>(`SELECT seq FROM webhook_cursor WHERE id = 1${lockRows(tx)}`);
  if (!cursor) return;
  for (const change of await entryChangesOfThreadAfter(tx, handoffId, cursor.seq)) await enqueue(tx, hooks, await eventsOfChange(tx, change), change.at);
}

/**
 * What a failure report (delivery.failed, sent to other receivers) says of the failed hook's
 * address: its origin alone. Services such as Slack and Discord put the hook's secret in its path,
 * and one receiver must not learn another's; the report's webhookId names the hook.
 */
function reportedOrigin(url: string): string {
  return URL.canParse(url) ? new URL(url).origin : "";
}

/** A claimed delivery: the row, its hook's address and secret, and the lease (its claimed_until) that makes it this process's. */
export type Due = { id: number; webhook_id: number; event: string; payload: string; attempts: number; url: string; secret: string; lease: string };

// A claim lives in claimed_until, not next_attempt_at: Resume and Redeliver set next_attempt_at to
// now, which must not make a delivery in flight due again.
const DUE_WHERE = "d.status = 'pending' AND d.next_attempt_at <= ? AND (d.claimed_until IS NULL OR d.claimed_until <= ?) AND w.status = 'active'";

/**
 * Claims up to `limit` due deliveries for `leaseMs`, none of the hooks in `skipHooks` (those the
 * caller is sending to as much as it will). Looks first, in a read: most calls find nothing due
 * and take no write lock.
 */
export async function claimDue(limit: number, leaseMs: number, skipHooks: readonly number[] = []): Promise<Due[]> {
  const where = `${DUE_WHERE}${skipHooks.length > 0 ? ` AND d.webhook_id NOT IN (${skipHooks.map(() => "?").join(", ")})` : ""}`;
  // Leases are written and compared on the database's clock: an instance whose machine's clock ran
  // ahead of another's by more than a lease took that one's delivery in flight and sent it again.
  const now = await read(async (tx) => {
    const clock = await databaseNow(tx);
    const at = storedDate(clock);
    return (await tx.get(`SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE ${where} LIMIT 1`, [at, at, ...skipHooks])) ? clock : null;
  });
  if (!now) return [];
  const at = storedDate(now);
  const lease = storedDate(new Date(now.getTime() + leaseMs));
  return write(async (tx) => {
    // PostgreSQL: rows another instance is claiming right now are skipped, not waited for.
    const rows = await tx.all<Omit<Due, "lease">>(
      `SELECT d.id, d.webhook_id, d.event, d.payload, d.attempts, w.url, w.secret
       FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
       WHERE ${where} ORDER BY d.next_attempt_at, d.id LIMIT ?${lockRows(tx, { of: "d", skipLocked: true })}`,
      [at, at, ...skipHooks, limit],
    );
    if (rows.length > 0) {
      await tx.run(`UPDATE webhook_deliveries SET claimed_until = ? WHERE id IN (${rows.map(() => "?").join(", ")})`, [lease, ...rows.map((row) => row.id)]);
    }
    return rows.map((row) => ({ ...row, lease }));
  });
}

/** Ends the leases of `claimed` now, those still held: another instance (or this one, later) sends them. Answers how many. */
export async function handBack(claimed: readonly Due[]): Promise<number> {
  if (claimed.length === 0) return 0;
  return write(async (tx) => {
    let handed = 0;
    for (const due of claimed) handed += await tx.run("UPDATE webhook_deliveries SET claimed_until = NULL WHERE id = ? AND status = 'pending' AND claimed_until = ?", [due.id, due.lease]);
    return handed;
  });
}

/**
 * What became of an attempt's outcome: recorded; dropped because the delivery was deleted with
 * its hook meanwhile; or dropped because the claim was no longer this one's (its lease ran out
 * and another instance claimed it).
 */
export type Recorded = "recorded" | "deleted" | "not ours";

/** Records one attempt's outcome, if the delivery is still this claim's, and ends the claim. */
export async function record(due: Due, result: AttemptResult, options: { retryScheduleMs: readonly number[]; pauseAfterFailures: number }): Promise<Recorded> {
  return write(async (tx) => {
    const ours = await tx.get(`SELECT id FROM webhook_deliveries WHERE id = ? AND status = 'pending' AND claimed_until = ?${lockRows(tx)}`, [due.id, due.lease]);
    if (!ours) return (await tx.get("SELECT id FROM webhook_deliveries WHERE id = ?", [due.id])) ? "not ours" : "deleted";
    const now = storedDate();
    await tx.run("INSERT INTO webhook_attempts (delivery_id, status, response_ms, error, at) VALUES (?, ?, ?, ?, ?)", [due.id, result.status, result.ms, result.error, now]);
    const attempts = due.attempts + 1;
    if (result.error === null) {
      await tx.run("UPDATE webhook_deliveries SET status = 'delivered', attempts = ?, last_status = ?, last_response_ms = ?, last_error = NULL, delivered_at = ?, claimed_until = NULL WHERE id = ?", [
        attempts,
        result.status,
        result.ms,
        now,
        due.id,
      ]);
      await tx.run("UPDATE webhooks SET consecutive_failures = 0 WHERE id = ?", [due.webhook_id]);
      return "recorded";
    }
    const gaveUp = result.refused === true || attempts > options.retryScheduleMs.length;
    // On the database's clock, which claimDue compares with: this machine's may run ahead.
    const next = gaveUp ? now : storedDate(new Date((await databaseNow(tx)).getTime() + options.retryScheduleMs[attempts - 1]));
    await tx.run("UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at = ?, last_status = ?, last_response_ms = ?, last_error = ?, claimed_until = NULL WHERE id = ?", [
      gaveUp ? "failed" : "pending",
      attempts,
      next,
      result.status,
      result.ms,
      result.error,
      due.id,
    ]);
    const hook = await tx.get<{ consecutive_failures: number }>("UPDATE webhooks SET consecutive_failures = consecutive_failures + 1 WHERE id = ? RETURNING consecutive_failures", [
      due.webhook_id,
    ]);
    if (!hook) return "recorded";
    if (gaveUp || hook.consecutive_failures >= options.pauseAfterFailures) await tx.run("UPDATE webhooks SET status = 'paused' WHERE id = ?", [due.webhook_id]);
    // A failure report about a failure report would chase itself.
    if (gaveUp && due.event !== "delivery.failed") {
      await enqueue(
        tx,
        await hooksIn(tx),
        [
          {
            event: "delivery.failed",
            data: { delivery: { id: due.id, webhookId: due.webhook_id, url: reportedOrigin(due.url), event: due.event, attempts, lastStatus: result.status, lastError: result.error } },
          },
        ],
        now,
      );
    }
    return "recorded";
  });
}

