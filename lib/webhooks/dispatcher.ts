import "server-only";
import { latestChangeSeq, subscribe, type Change, type FeedEvent, type Subscription } from "../changes";
import { read, storedDate, write, type Sql } from "../sqlite";
import { withoutCredentials } from "./addresses";
import { enqueue, type Queued } from "./enqueue";
import { RefusedDestination, postOnce } from "./send";
import { signatureHeader } from "./signature";
import { startWaitingWatch, WAITING_CHECK_MS } from "./waiting";

/**
 * The webhook dispatcher, running inside Baton's server process. It follows the change feed from
 * the seq kept in webhook_cursor and turns each change into queued rows of webhook_deliveries in
 * the same transaction that moves the cursor: a restart resumes where it stopped, losing none and
 * enqueueing none twice. A sending loop POSTs what is due, signed, never following a redirect,
 * and reschedules failures along RETRY_SCHEDULE_MS (a day in all) before giving up. A destination
 * lib/webhooks/addresses refuses (a row stored before the rules, or a name that resolves to a
 * metadata address) is not contacted: the delivery gives up at once and the hook is paused.
 */
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/** The wait after each failed attempt; after the last, the delivery has failed (about 24 h after the first attempt). */
export const RETRY_SCHEDULE_MS = [10 * SECOND, MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 4 * HOUR, 8 * HOUR, 9 * HOUR];
/** A hook failing this many times in a row is paused (also when one of its deliveries gives up). */
export const PAUSE_AFTER_FAILURES = 20;
export const DELIVERY_TIMEOUT_MS = 10 * SECOND;
const SEND_INTERVAL_MS = SECOND;
const SEND_BATCH = 10;
const ERROR_TEXT_MAX = 300;

export type DispatcherOptions = {
  retryScheduleMs?: readonly number[];
  pauseAfterFailures?: number;
  timeoutMs?: number;
  sendIntervalMs?: number;
  /** How often handoffs left unread are looked for (handoff.waiting, lib/webhooks/waiting.ts). */
  waitingCheckMs?: number;
};
export type WebhookDispatcher = { stop: () => Promise<void>; /** Sends what is due now (tests; the loop does it every second). */ sendDue: () => Promise<void> };

function cursorIn(tx: Sql): number {
  const row = tx.statement("SELECT seq FROM webhook_cursor WHERE id = 1").get() as { seq: number } | undefined;
  if (row) return row.seq;
  // A fresh dispatcher starts at the present: hooks are about what happens from now on.
  const latest = latestChangeSeq();
  tx.statement("INSERT INTO webhook_cursor (id, seq) VALUES (1, ?)").run(latest);
  return latest;
}

/** What one change means for webhooks (nothing for most). Reads the rows it names, which may be gone (a closed handoff's entries). */
function eventsOfChange(tx: Sql, change: Change): Queued[] {
  if (change.subject === "entry" && change.action === "created" && change.entrySeq !== null) {
    const entry = tx
      .statement(
        "SELECT e.seq, e.type, e.from_client, e.content, e.created_at, h.id AS handoff_id, h.title, h.project FROM handoff_entries e JOIN handoffs h ON h.id = e.handoff_id WHERE e.seq = ?",
      )
      .get(change.entrySeq) as
      | { seq: number; type: string; from_client: string; content: string; created_at: string; handoff_id: string; title: string; project: string | null }
      | undefined;
    if (!entry) return [];
    const data = {
      handoff: { id: entry.handoff_id, title: entry.title, project: entry.project },
      entry: { seq: entry.seq, type: entry.type, from: entry.from_client, content: entry.content, createdAt: entry.created_at },
    };
    const queued: Queued[] = [{ event: "entry.created", entryType: entry.type, data }];
    if (entry.type === "question") queued.push({ event: "question.asked", data: { ...data, waitingFor: entry.from_client === "chat" ? "code" : "chat" } });
    return queued;
  }
  if (change.subject === "handoff" && change.action === "closed" && change.handoffId) {
    const handoff = tx.statement("SELECT id, title, project, closed_at FROM handoffs WHERE id = ?").get(change.handoffId) as
      | { id: string; title: string; project: string | null; closed_at: string | null }
      | undefined;
    return handoff ? [{ event: "handoff.closed", data: { handoff: { id: handoff.id, title: handoff.title, project: handoff.project, closedAt: handoff.closed_at } } }] : [];
  }
  if (change.subject === "shift_handoff" && change.action === "created" && change.agentId !== null) {
    const record = tx
      .statement(
        "SELECT a.id, a.name, a.persona_slug, a.project, r.reason, r.file_path, r.created_at FROM handoff_records r JOIN agents a ON a.id = r.agent_id WHERE r.agent_id = ?",
      )
      .get(change.agentId) as { id: number; name: string; persona_slug: string; project: string | null; reason: string; file_path: string | null; created_at: string } | undefined;
    if (!record) return [];
    return [
      {
        event: "agent.handed_off",
        data: {
          agent: { id: record.id, name: record.name, persona: record.persona_slug, project: record.project },
          handoff: { reason: record.reason, filePath: record.file_path, createdAt: record.created_at },
        },
      },
    ];
  }
  return [];
}

/** Whether a change can make a delivery; the others (most: a handoff's updated_at moving) cost no write at all. */
const mayDeliver = (change: Change) =>
  (change.subject === "entry" && change.action === "created") ||
  (change.subject === "handoff" && change.action === "closed") ||
  (change.subject === "shift_handoff" && change.action === "created");

/**
 * Turns one change into deliveries and moves the cursor past it, atomically; a change already
 * processed (by this or another process) is skipped. Changes that cannot deliver anything do not
 * move the stored cursor: after a restart they are read again and again make nothing.
 */
function processChange(change: Change): number {
  if (!mayDeliver(change)) return 0;
  return write((tx) => {
    if (change.seq <= cursorIn(tx)) return 0;
    const added = enqueue(tx, eventsOfChange(tx, change), change.at);
    tx.statement("UPDATE webhook_cursor SET seq = ? WHERE id = 1").run(change.seq);
    return added;
  });
}

type Due = { id: number; webhook_id: number; event: string; payload: string; attempts: number; url: string; secret: string };

const clip = (text: string) => (text.length > ERROR_TEXT_MAX ? `${text.slice(0, ERROR_TEXT_MAX)}…` : text);

type AttemptResult = {
  status: number | null;
  ms: number;
  error: string | null;
  /** Refused before sending: no retry can help. */
  refused?: boolean;
};

async function attempt(due: Due, timeoutMs: number): Promise<AttemptResult> {
  const timestamp = Math.floor(Date.now() / 1000);
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const headers = {
      "content-type": "application/json",
      "user-agent": "Baton-Webhook/1",
      "x-baton-event": due.event,
      "x-baton-delivery": String(due.id),
      "x-baton-signature": signatureHeader(due.secret, timestamp, due.payload),
    };
    // Only the registered URL is ever contacted: a redirect is an answer, not an instruction.
    const status = await postOnce(due.url, due.payload, headers, timeoutMs);
    const ok = status >= 200 && status < 300;
    return { status, ms: elapsed(), error: ok ? null : `answered HTTP ${status}${status >= 300 && status < 400 ? " (redirects are not followed)" : ""}` };
  } catch (error) {
    if (error instanceof RefusedDestination) return { status: null, ms: elapsed(), error: clip(`not sent: ${error.message}`), refused: true };
    const { name, code, message } = error as NodeJS.ErrnoException;
    const reason = name === "AbortError" ? `no answer within ${timeoutMs / 1000} s` : (code ?? message);
    return { status: null, ms: elapsed(), error: clip(String(reason)) };
  }
}

function record(due: Due, result: AttemptResult, options: Required<DispatcherOptions>): void {
  write((tx) => {
    const now = storedDate();
    tx.statement("INSERT INTO webhook_attempts (delivery_id, status, response_ms, error, at) VALUES (?, ?, ?, ?, ?)").run(due.id, result.status, result.ms, result.error, now);
    const attempts = due.attempts + 1;
    if (result.error === null) {
      tx.statement("UPDATE webhook_deliveries SET status = 'delivered', attempts = ?, last_status = ?, last_response_ms = ?, last_error = NULL, delivered_at = ? WHERE id = ?").run(
        attempts,
        result.status,
        result.ms,
        now,
        due.id,
      );
      tx.statement("UPDATE webhooks SET consecutive_failures = 0 WHERE id = ?").run(due.webhook_id);
      return;
    }
    const gaveUp = result.refused === true || attempts > options.retryScheduleMs.length;
    const next = gaveUp ? now : storedDate(new Date(Date.now() + options.retryScheduleMs[attempts - 1]));
    tx.statement("UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at = ?, last_status = ?, last_response_ms = ?, last_error = ? WHERE id = ?").run(
      gaveUp ? "failed" : "pending",
      attempts,
      next,
      result.status,
      result.ms,
      result.error,
      due.id,
    );
    const hook = tx.statement("UPDATE webhooks SET consecutive_failures = consecutive_failures + 1 WHERE id = ? RETURNING consecutive_failures").get(due.webhook_id) as
      | { consecutive_failures: number }
      | undefined;
    if (!hook) return;
    if (gaveUp || hook.consecutive_failures >= options.pauseAfterFailures) tx.statement("UPDATE webhooks SET status = 'paused' WHERE id = ?").run(due.webhook_id);
    // A failure report about a failure report would chase itself.
    if (gaveUp && due.event !== "delivery.failed") {
      enqueue(tx, [{ event: "delivery.failed", data: { delivery: { id: due.id, webhookId: due.webhook_id, url: withoutCredentials(due.url), event: due.event, attempts, lastStatus: result.status, lastError: result.error } } }], now);
    }
  });
}

/** Starts following the change feed and sending. Stop it before the database goes away. */
export function startWebhookDispatcher(overrides: DispatcherOptions = {}): WebhookDispatcher {
  const options: Required<DispatcherOptions> = {
    retryScheduleMs: overrides.retryScheduleMs ?? RETRY_SCHEDULE_MS,
    pauseAfterFailures: overrides.pauseAfterFailures ?? PAUSE_AFTER_FAILURES,
    timeoutMs: overrides.timeoutMs ?? DELIVERY_TIMEOUT_MS,
    sendIntervalMs: overrides.sendIntervalMs ?? SEND_INTERVAL_MS,
    waitingCheckMs: overrides.waitingCheckMs ?? WAITING_CHECK_MS,
  };
  const inFlight = new Map<number, Promise<void>>();
  let stopped = false;
  let kick: ReturnType<typeof setImmediate> | null = null;

  const sendDue = async () => {
    if (stopped) return;
    let due: Due[];
    try {
      due = read(
        (tx) =>
          tx
            .statement(
              "SELECT d.id, d.webhook_id, d.event, d.payload, d.attempts, w.url, w.secret FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND w.status = 'active' ORDER BY d.next_attempt_at LIMIT ?",
            )
            .all(storedDate(new Date()), SEND_BATCH + inFlight.size) as Due[],
      ).filter((row) => !inFlight.has(row.id));
    } catch (error) {
      console.error("baton: the webhook dispatcher could not read its queue; retrying", error);
      return;
    }
    await Promise.all(
      due.slice(0, SEND_BATCH).map((row) => {
        const sending = attempt(row, options.timeoutMs)
          .then((result) => record(row, result, options))
          .catch((error) => console.error(`baton: could not record webhook delivery ${row.id}`, error))
          .finally(() => inFlight.delete(row.id));
        inFlight.set(row.id, sending);
        return sending;
      }),
    );
  };

  const onFeed = (event: FeedEvent) => {
    if (event.kind === "reset") {
      // The changes in between are no longer kept: nothing can be made of them.
      console.error(`baton: webhooks skipped changes up to seq ${event.seq}: ${event.reason}`);
      write((tx) => {
        cursorIn(tx);
        tx.statement("UPDATE webhook_cursor SET seq = max(seq, ?) WHERE id = 1").run(event.seq);
      });
      return;
    }
    if (processChange(event.change) > 0 && !stopped) kick ??= setImmediate(() => ((kick = null), void sendDue()));
  };

  const after = write((tx) => cursorIn(tx));
  const subscription: Subscription = subscribe({ after, filter: { subjects: ["entry", "handoff", "shift_handoff"] } }, onFeed);
  const timer = setInterval(() => void sendDue(), options.sendIntervalMs);
  timer.unref?.();
  const waiting = startWaitingWatch(options.waitingCheckMs, () => {
    if (!stopped) kick ??= setImmediate(() => ((kick = null), void sendDue()));
  });
  void sendDue();

  return {
    sendDue,
    stop: async () => {
      stopped = true;
      subscription.close();
      clearInterval(timer);
      waiting.stop();
      if (kick) clearImmediate(kick);
      await Promise.all(inFlight.values());
    },
  };
}
