import "server-only";
import type { WebhookEvent } from "./schemas";
import { waitingAfterMs, waitingIn, type WaitingHandoff } from "../handoffs/attention";
import { CLIENT_SIDES } from "../handoffs/schemas";
import { read, storedDate, write, type Tx } from "../database";
import { anyHookWants, enqueue, hooksIn } from "./enqueue";

/**
 * `handoff.waiting`: a handoff whose new entries have stayed unread by the other side for
 * BATON_WAITING_AFTER (30 min by default) raises it, once per waiting episode. An episode is
 * named by the first entry that side has not read: more entries while it still has not read
 * are the same episode; once it reads, the next new entry starts another. The last episode
 * raised per handoff and side is kept in webhook_waiting (owned here), so neither a restart nor
 * a second instance looking at the same moment raises one twice. Time, not a write, makes a
 * handoff waiting: the running server looks every WAITING_CHECK_MS, only while some hook wants
 * the event.
 */
export const WAITING_CHECK_MS = 30_000;
/** Waiting handoffs looked at per check and side, longest waiting first. */
const MAX_WAITING = 10_000;

/** The event this module raises (lib/webhooks/schemas.ts lists it with the others). */
export const HANDOFF_WAITING = "handoff.waiting" satisfies WebhookEvent;

/** The first unread seq of the episode last raised, by `<handoff id> <side>`: one read, not one per waiting handoff. */
async function lastRaisedEpisodes(tx: Tx): Promise<Map<string, number>> {
  const rows = await tx.all<{ handoff_id: string; side: string; first_seq: number }>("SELECT handoff_id, side, first_seq FROM webhook_waiting");
  return new Map(rows.map((row) => [`${row.handoff_id} ${row.side}`, row.first_seq]));
}

function dataOf(waiting: WaitingHandoff, now: Date): Record<string, unknown> {
  const { handoff } = waiting;
  return {
    handoff: { id: handoff.id, title: handoff.title, project: handoff.project },
    waitingFor: waiting.waitingFor,
    since: waiting.since,
    waitingMinutes: Math.floor((now.getTime() - Date.parse(waiting.since)) / 60_000),
    firstUnreadSeq: waiting.firstUnreadSeq,
    firstUnreadNumber: waiting.firstUnreadNumber,
    unreadCount: waiting.unreadCount,
  };
}

/**
 * Raises `handoff.waiting` for each waiting episode not raised yet and returns how many it
 * raised. Finding them is a read; only new episodes are written, each through one upsert that
 * answers a row only when it recorded a new episode: a process or instance raising the same
 * one at the same moment waits for that row and then finds it raised. Nothing happens while no
 * hook wants the event.
 */
export async function raiseWaitingEvents(options: { now?: Date; olderThanMs?: number } = {}): Promise<number> {
  const now = options.now ?? new Date();
  const cutoff = storedDate(new Date(now.getTime() - (options.olderThanMs ?? waitingAfterMs())));
  const fresh = await read(async (tx) => {
    if (!(await anyHookWants(tx, HANDOFF_WAITING))) return [];
    const raised = await lastRaisedEpisodes(tx);
    const found: WaitingHandoff[] = [];
    for (const side of CLIENT_SIDES) {
      for (const waiting of await waitingIn(tx, side, cutoff, MAX_WAITING)) {
        if (raised.get(`${waiting.handoff.id} ${waiting.waitingFor}`) !== waiting.firstUnreadSeq) found.push(waiting);
      }
    }
    return found;
  });
  if (fresh.length === 0) return 0;
  return write(async (tx) => {
    let raised = 0;
    const at = storedDate(now);
    const hooks = await hooksIn(tx);
    for (const waiting of fresh) {
      const recorded = await tx.get(
        `INSERT INTO webhook_waiting (handoff_id, side, first_seq, raised_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (handoff_id, side) DO UPDATE SET first_seq = excluded.first_seq, raised_at = excluded.raised_at
         WHERE webhook_waiting.first_seq <> excluded.first_seq
         RETURNING handoff_id`,
        [waiting.handoff.id, waiting.waitingFor, waiting.firstUnreadSeq, at],
      );
      if (!recorded) continue;
      await enqueue(tx, hooks, [{ event: HANDOFF_WAITING, data: dataOf(waiting, now) }], at);
      raised++;
    }
    return raised;
  });
}

/** Looks for waiting handoffs now and every `intervalMs`; `onRaised` runs when a look raised any. */
export function startWaitingWatch(intervalMs: number, onRaised: () => void): { stop: () => void } {
  let looking = false;
  const look = async () => {
    // A look slower than the interval is not joined by the next one.
    if (looking) return;
    looking = true;
    try {
      if ((await raiseWaitingEvents()) > 0) onRaised();
    } catch (error) {
      console.error("baton: could not look for handoffs left unread (handoff.waiting); trying again later", error);
    } finally {
      looking = false;
    }
  };
  const first = setImmediate(() => void look());
  const timer = setInterval(() => void look(), intervalMs);
  timer.unref?.();
  return {
    stop: () => {
      clearImmediate(first);
      clearInterval(timer);
    },
  };
}
