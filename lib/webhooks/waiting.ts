import "server-only";
import type { WebhookEvent } from "./schemas";
import { waitingAfterMs, waitingIn, type WaitingHandoff } from "../handoffs/attention";
import { CLIENT_SIDES } from "../handoffs/schemas";
import { read, storedDate, write, type Sql } from "../sqlite";
import { anyHookWants, enqueue } from "./enqueue";

/**
 * `handoff.waiting`: a handoff whose new entries have stayed unread by the other side for
 * BATON_WAITING_AFTER (30 min by default) raises it, once per waiting episode. An episode is
 * named by the first entry that side has not read: more entries while it still has not read
 * are the same episode; once it reads, the next new entry starts another. The last episode
 * raised per handoff and side is kept in webhook_waiting (owned here), so a restart raises none
 * twice. Time, not a write, makes a handoff waiting: the running server looks every
 * WAITING_CHECK_MS, only while some hook wants the event.
 */
export const WAITING_CHECK_MS = 30_000;
/** Waiting handoffs looked at per check and side, longest waiting first. */
const MAX_WAITING = 10_000;

/** The event this module raises (lib/webhooks/schemas.ts lists it with the others). */
export const HANDOFF_WAITING = "handoff.waiting" satisfies WebhookEvent;

function lastRaised(tx: Sql, handoffId: string, side: string): number | null {
  const row = tx.statement("SELECT first_seq FROM webhook_waiting WHERE handoff_id = ? AND side = ?").get(handoffId, side) as { first_seq: number } | undefined;
  return row?.first_seq ?? null;
}

function dataOf(waiting: WaitingHandoff, now: Date): Record<string, unknown> {
  const { handoff } = waiting;
  return {
    handoff: { id: handoff.id, title: handoff.title, project: handoff.project },
    waitingFor: waiting.waitingFor,
    since: waiting.since,
    waitingMinutes: Math.floor((now.getTime() - Date.parse(waiting.since)) / 60_000),
    firstUnreadSeq: waiting.firstUnreadSeq,
    unreadCount: waiting.unreadCount,
  };
}

/**
 * Raises `handoff.waiting` for each waiting episode not raised yet and returns how many it
 * raised. Finding them is a read; only new episodes take the write lock (checked again there,
 * so two processes never raise one twice). Nothing happens while no hook wants the event.
 */
export function raiseWaitingEvents(options: { now?: Date; olderThanMs?: number } = {}): number {
  const now = options.now ?? new Date();
  const cutoff = storedDate(new Date(now.getTime() - (options.olderThanMs ?? waitingAfterMs())));
  const fresh = read((tx) => {
    if (!anyHookWants(tx, HANDOFF_WAITING)) return [];
    return CLIENT_SIDES.flatMap((side) => waitingIn(tx, side, cutoff, MAX_WAITING)).filter(
      (waiting) => lastRaised(tx, waiting.handoff.id, waiting.waitingFor) !== waiting.firstUnreadSeq,
    );
  });
  if (fresh.length === 0) return 0;
  return write((tx) => {
    let raised = 0;
    const at = storedDate(now);
    for (const waiting of fresh) {
      if (lastRaised(tx, waiting.handoff.id, waiting.waitingFor) === waiting.firstUnreadSeq) continue;
      tx.statement(
        `INSERT INTO webhook_waiting (handoff_id, side, first_seq, raised_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (handoff_id, side) DO UPDATE SET first_seq = excluded.first_seq, raised_at = excluded.raised_at`,
      ).run(waiting.handoff.id, waiting.waitingFor, waiting.firstUnreadSeq, at);
      enqueue(tx, [{ event: HANDOFF_WAITING, data: dataOf(waiting, now) }], at);
      raised++;
    }
    return raised;
  });
}

/** Looks for waiting handoffs now and every `intervalMs`; `onRaised` runs when a look raised any. */
export function startWaitingWatch(intervalMs: number, onRaised: () => void): { stop: () => void } {
  const look = () => {
    try {
      if (raiseWaitingEvents() > 0) onRaised();
    } catch (error) {
      console.error("baton: could not look for handoffs left unread (handoff.waiting); trying again later", error);
    }
  };
  const first = setImmediate(look);
  const timer = setInterval(look, intervalMs);
  timer.unref?.();
  return {
    stop: () => {
      clearImmediate(first);
      clearInterval(timer);
    },
  };
}
