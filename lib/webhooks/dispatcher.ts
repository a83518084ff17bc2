import "server-only";
import { latestChangeSeq, subscribe, type Change, type FeedEvent, type Subscription } from "../changes";
import { lockRows, read, storedDate, write, type Tx } from "../database";
import { withoutCredentials } from "../url-credentials";
import { enqueue, type Queued } from "./enqueue";
import { RefusedDestination, postOnce } from "./send";
import { signatureHeader } from "./signature";
import { startWaitingWatch, WAITING_CHECK_MS } from "./waiting";

/**
 * The webhook dispatcher, running inside Baton's server process — in every instance when
 * several share one PostgreSQL database. It follows the change feed from the seq kept in
 * webhook_cursor and turns each change into queued rows of webhook_deliveries in the same
 * transaction that moves the cursor (locked, so instances following the same feed enqueue each
 * change once): a restart resumes where it stopped, losing none and enqueueing none twice.
 *
 * A sending loop claims what is due and POSTs it, signed, never following a redirect, and
 * reschedules failures along RETRY_SCHEDULE_MS (a day in all) before giving up. A claim is a
 * lease written into the row: its next_attempt_at moves to the end of the lease, in one
 * transaction that takes the rows (SQLite's write lock; on PostgreSQL `FOR UPDATE SKIP LOCKED`,
 * so instances claim different rows without waiting for each other). Only the claimer records
 * the outcome, and only while the row still carries its lease. A delivery claimed by an instance
 * that died is due again once the lease runs out, and another instance sends it; one stopped
 * gracefully hands its claims back at once (`stop`, `releaseClaimedDeliveries`).
 *
 * Each delivery therefore reaches its receiver once, however many instances run, except when an
 * instance dies (or hands back) after its POST went out but before it recorded the answer: then
 * it is sent again. Receivers can tell by the X-Baton-Delivery header, the same for both.
 *
 * A destination lib/webhooks/addresses refuses (a row stored before the rules, or a name that
 * resolves to a metadata address) is not contacted: the delivery gives up at once and the hook
 * is paused.
 */
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/** The wait after each failed attempt; after the last, the delivery has failed (about 24 h after the first attempt). */
export const RETRY_SCHEDULE_MS = [10 * SECOND, MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 4 * HOUR, 8 * HOUR, 9 * HOUR];
/** A hook failing this many times in a row is paused (also when one of its deliveries gives up). */
export const PAUSE_AFTER_FAILURES = 20;
export const DELIVERY_TIMEOUT_MS = 10 * SECOND;
/** How long a claimed delivery stays another instance's: well past one attempt's timeout. */
export const CLAIM_LEASE_MS = 3 * DELIVERY_TIMEOUT_MS;
/** How long `stop` lets sends in flight finish before handing the rest back. */
export const STOP_GRACE_MS = 5 * SECOND;
const SEND_INTERVAL_MS = SECOND;
const SEND_BATCH = 10;
const ERROR_TEXT_MAX = 300;
/** After the feed could not be followed (the database away), how long before trying again from the cursor. */
const FOLLOW_RETRY_MS = SECOND;

export type DispatcherOptions = {
  retryScheduleMs?: readonly number[];
  pauseAfterFailures?: number;
  timeoutMs?: number;
  /** How long a claim lasts; longer than `timeoutMs`, or a slow receiver is sent to twice. */
  leaseMs?: number;
  sendIntervalMs?: number;
  /** How long `stop` waits for sends in flight before handing them back. */
  stopGraceMs?: number;
  /** How often handoffs left unread are looked for (handoff.waiting, lib/webhooks/waiting.ts). */
  waitingCheckMs?: number;
};
export type WebhookDispatcher = {
  /**
   * Resolves once it follows the change feed (or stopped first). A dispatcher starting on a
   * database none ever ran on begins at that moment's latest change: writes before are not
   * for hooks.
   */
  ready: Promise<void>;
  /** Stops claiming and following; sends in flight get `stopGraceMs` to finish, the rest are handed back. */
  stop: () => Promise<void>;
  /** Claims and sends what is due now (tests; the loop does it every second). */
  sendDue: () => Promise<void>;
};

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

/** What one change means for webhooks (nothing for most). Reads the rows it names, which may be gone (a closed handoff's entries). */
async function eventsOfChange(tx: Tx, change: Change): Promise<Queued[]> {
  if (change.subject === "entry" && change.action === "created" && change.entrySeq !== null) {
    const entry = await tx.get<{ seq: number; type: string; from_client: string; content: string; created_at: string; handoff_id: string; title: string; project: string | null }>(
      "SELECT e.seq, e.type, e.from_client, e.content, e.created_at, h.id AS handoff_id, h.title, h.project FROM handoff_entries e JOIN handoffs h ON h.id = e.handoff_id WHERE e.seq = ?",
      [change.entrySeq],
    );
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
    const handoff = await tx.get<{ id: string; title: string; project: string | null; closed_at: string | null }>("SELECT id, title, project, closed_at FROM handoffs WHERE id = ?", [
      change.handoffId,
    ]);
    return handoff ? [{ event: "handoff.closed", data: { handoff: { id: handoff.id, title: handoff.title, project: handoff.project, closedAt: handoff.closed_at } } }] : [];
  }
  if (change.subject === "shift_handoff" && change.action === "created" && change.agentId !== null) {
    const record = await tx.get<{ id: number; name: string; persona_slug: string; project: string | null; reason: string; file_path: string | null; created_at: string }>(
      "SELECT a.id, a.name, a.persona_slug, a.project, r.reason, r.file_path, r.created_at FROM handoff_records r JOIN agents a ON a.id = r.agent_id WHERE r.agent_id = ?",
      [change.agentId],
    );
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
 * processed (by this or another process or instance) is skipped. Changes that cannot deliver
 * anything do not move the stored cursor: after a restart they are read again and again make nothing.
 */
async function processChange(change: Change): Promise<number> {
  if (!mayDeliver(change)) return 0;
  return write(async (tx) => {
    if (change.seq <= (await cursorIn(tx, change.seq - 1))) return 0;
    const added = await enqueue(tx, await eventsOfChange(tx, change), change.at);
    await tx.run("UPDATE webhook_cursor SET seq = ? WHERE id = 1", [change.seq]);
    return added;
  });
}

/** A claimed delivery: the row, its hook's address and secret, and the lease that makes it this process's. */
type Due = { id: number; webhook_id: number; event: string; payload: string; attempts: number; url: string; secret: string; lease: string };

const DUE_WHERE = "d.status = 'pending' AND d.next_attempt_at <= ? AND w.status = 'active'";

/**
 * Claims up to `limit` due deliveries for `leaseMs`. Looks first, in a read: most calls find
 * nothing due and take no write lock.
 */
async function claimDue(limit: number, leaseMs: number): Promise<Due[]> {
  const now = new Date();
  const due = await read((tx) => tx.get(`SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE ${DUE_WHERE} LIMIT 1`, [storedDate(now)]));
  if (!due) return [];
  const lease = storedDate(new Date(now.getTime() + leaseMs));
  return write(async (tx) => {
    // PostgreSQL: rows another instance is claiming right now are skipped, not waited for.
    const rows = await tx.all<Omit<Due, "lease">>(
      `SELECT d.id, d.webhook_id, d.event, d.payload, d.attempts, w.url, w.secret
       FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
       WHERE ${DUE_WHERE} ORDER BY d.next_attempt_at, d.id LIMIT ?${lockRows(tx, { of: "d", skipLocked: true })}`,
      [storedDate(now), limit],
    );
    if (rows.length > 0) {
      await tx.run(`UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id IN (${rows.map(() => "?").join(", ")})`, [lease, ...rows.map((row) => row.id)]);
    }
    return rows.map((row) => ({ ...row, lease }));
  });
}

/** Ends the leases of `claimed` now, those still held: another instance (or this one, later) sends them. Answers how many. */
async function handBack(claimed: readonly Due[]): Promise<number> {
  if (claimed.length === 0) return 0;
  return write(async (tx) => {
    const now = storedDate();
    let handed = 0;
    for (const due of claimed) handed += await tx.run("UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id = ? AND status = 'pending' AND next_attempt_at = ?", [now, due.id, due.lease]);
    return handed;
  });
}

const clip = (text: string) => (text.length > ERROR_TEXT_MAX ? `${text.slice(0, ERROR_TEXT_MAX)}…` : text);

type AttemptResult = {
  status: number | null;
  ms: number;
  error: string | null;
  /** Refused before sending: no retry can help. */
  refused?: boolean;
};

async function attempt(due: Due, timeoutMs: number, signal: AbortSignal): Promise<AttemptResult> {
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
    const status = await postOnce(due.url, due.payload, headers, timeoutMs, signal);
    const ok = status >= 200 && status < 300;
    return { status, ms: elapsed(), error: ok ? null : `answered HTTP ${status}${status >= 300 && status < 400 ? " (redirects are not followed)" : ""}` };
  } catch (error) {
    if (error instanceof RefusedDestination) return { status: null, ms: elapsed(), error: clip(`not sent: ${error.message}`), refused: true };
    const { name, code, message } = error as NodeJS.ErrnoException;
    const reason = name === "AbortError" ? `no answer within ${timeoutMs / 1000} s` : (code ?? message);
    return { status: null, ms: elapsed(), error: clip(String(reason)) };
  }
}

/**
 * Records one attempt's outcome, if the delivery is still this claim's (not handed back,
 * redelivered, or claimed by another instance after the lease ran out); answers whether it was.
 */
async function record(due: Due, result: AttemptResult, options: Required<DispatcherOptions>): Promise<boolean> {
  return write(async (tx) => {
    const ours = await tx.get(`SELECT id FROM webhook_deliveries WHERE id = ? AND status = 'pending' AND next_attempt_at = ?${lockRows(tx)}`, [due.id, due.lease]);
    if (!ours) return false;
    const now = storedDate();
    await tx.run("INSERT INTO webhook_attempts (delivery_id, status, response_ms, error, at) VALUES (?, ?, ?, ?, ?)", [due.id, result.status, result.ms, result.error, now]);
    const attempts = due.attempts + 1;
    if (result.error === null) {
      await tx.run("UPDATE webhook_deliveries SET status = 'delivered', attempts = ?, last_status = ?, last_response_ms = ?, last_error = NULL, delivered_at = ? WHERE id = ?", [
        attempts,
        result.status,
        result.ms,
        now,
        due.id,
      ]);
      await tx.run("UPDATE webhooks SET consecutive_failures = 0 WHERE id = ?", [due.webhook_id]);
      return true;
    }
    const gaveUp = result.refused === true || attempts > options.retryScheduleMs.length;
    const next = gaveUp ? now : storedDate(new Date(Date.now() + options.retryScheduleMs[attempts - 1]));
    await tx.run("UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at = ?, last_status = ?, last_response_ms = ?, last_error = ? WHERE id = ?", [
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
    if (!hook) return true;
    if (gaveUp || hook.consecutive_failures >= options.pauseAfterFailures) await tx.run("UPDATE webhooks SET status = 'paused' WHERE id = ?", [due.webhook_id]);
    // A failure report about a failure report would chase itself.
    if (gaveUp && due.event !== "delivery.failed") {
      await enqueue(
        tx,
        [
          {
            event: "delivery.failed",
            data: { delivery: { id: due.id, webhookId: due.webhook_id, url: withoutCredentials(due.url), event: due.event, attempts, lastStatus: result.status, lastError: result.error } },
          },
        ],
        now,
      );
    }
    return true;
  });
}

/** A delivery being sent: aborting it (a hand-back) drops its outcome. */
type Sending = { due: Due; abort: AbortController; done: Promise<void> };
/** What releaseClaimedDeliveries reaches of each dispatcher running in this process. */
type Running = { stopClaiming: () => void; sending: Map<number, Sending> };

// Every dispatcher of this process, whichever bundle started it.
const globalForDispatchers = globalThis as unknown as { batonWebhookDispatchers?: Set<Running> };
const runningDispatchers = () => (globalForDispatchers.batonWebhookDispatchers ??= new Set());

/** Aborts `sendings` and hands their deliveries back; answers how many were still this process's. */
async function release(sendings: Sending[]): Promise<number> {
  for (const sending of sendings) sending.abort.abort();
  const handed = await handBack(sendings.map((sending) => sending.due));
  await Promise.all(sendings.map((sending) => sending.done));
  return handed;
}

/**
 * For a graceful shutdown that cannot wait: every dispatcher of this process stops claiming,
 * its sends in flight are aborted and their deliveries handed back, due now, so another
 * instance (or this server after its restart) sends them at once instead of after the lease.
 * Answers how many deliveries were handed back. A receiver may already have received an
 * aborted send: it gets the same X-Baton-Delivery again. `WebhookDispatcher.stop` does the same
 * after letting sends finish for a moment; a process killed without either leaves its claims to
 * run out (CLAIM_LEASE_MS).
 */
export async function releaseClaimedDeliveries(): Promise<number> {
  const sendings: Sending[] = [];
  for (const running of runningDispatchers()) {
    running.stopClaiming();
    sendings.push(...running.sending.values());
  }
  return release(sendings);
}

/** Starts following the change feed and sending. Stop it before the database goes away. */
export function startWebhookDispatcher(overrides: DispatcherOptions = {}): WebhookDispatcher {
  const timeoutMs = overrides.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const options: Required<DispatcherOptions> = {
    retryScheduleMs: overrides.retryScheduleMs ?? RETRY_SCHEDULE_MS,
    pauseAfterFailures: overrides.pauseAfterFailures ?? PAUSE_AFTER_FAILURES,
    timeoutMs,
    leaseMs: overrides.leaseMs ?? Math.max(CLAIM_LEASE_MS, 3 * timeoutMs),
    sendIntervalMs: overrides.sendIntervalMs ?? SEND_INTERVAL_MS,
    stopGraceMs: overrides.stopGraceMs ?? STOP_GRACE_MS,
    waitingCheckMs: overrides.waitingCheckMs ?? WAITING_CHECK_MS,
  };
  const sending = new Map<number, Sending>();
  let claiming = true;
  let stopped = false;
  let kick: ReturnType<typeof setImmediate> | null = null;
  const running: Running = { stopClaiming: () => (claiming = false), sending };
  runningDispatchers().add(running);

  const send = (due: Due): Promise<void> => {
    const abort = new AbortController();
    const done = (async () => {
      try {
        const result = await attempt(due, options.timeoutMs, abort.signal);
        // Handed back while it was sent: the outcome is no longer this process's to record.
        if (abort.signal.aborted) return;
        if (!(await record(due, result, options))) console.error(`baton: webhook delivery ${due.id} was no longer this server's claim when its answer came; not recorded`);
      } catch (error) {
        console.error(`baton: could not record webhook delivery ${due.id}`, error);
      } finally {
        sending.delete(due.id);
      }
    })();
    sending.set(due.id, { due, abort, done });
    return done;
  };

  // Claims and follows under way: `stop` waits for them (not for sends, which get a grace period).
  const underWay = new Set<Promise<unknown>>();
  const track = <T>(work: Promise<T>): Promise<T> => {
    underWay.add(work);
    void work.finally(() => underWay.delete(work));
    return work;
  };

  const claim = async (): Promise<Due[]> => {
    let claimed: Due[];
    try {
      claimed = await claimDue(SEND_BATCH, options.leaseMs);
    } catch (error) {
      console.error("baton: the webhook dispatcher could not claim from its queue; retrying", error);
      return [];
    }
    if (claiming) return claimed;
    // Stopped while claiming: these go back at once rather than after the lease.
    await handBack(claimed).catch((error: unknown) => console.error("baton: could not hand back webhook deliveries; they are sent once their lease runs out", error));
    return [];
  };

  const sendDue = async () => {
    if (!claiming) return;
    const claimed = await track(claim());
    await Promise.all(claimed.map(send));
  };
  const sendSoon = () => {
    if (claiming) kick ??= setImmediate(() => ((kick = null), void sendDue()));
  };

  // Feed events are processed one after another, in seq order: the cursor only moves forward.
  let subscription: Subscription | null = null;
  let processing: Promise<void> = Promise.resolve();
  let generation = 0;
  let retry: ReturnType<typeof setTimeout> | null = null;
  let markReady = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  const handle = async (event: FeedEvent) => {
    if (event.kind === "reset") {
      // The changes in between are no longer kept: nothing can be made of them.
      console.error(`baton: webhooks skipped changes up to seq ${event.seq}: ${event.reason}`);
      await write(async (tx) => {
        await cursorIn(tx, event.seq);
        await tx.run("UPDATE webhook_cursor SET seq = CASE WHEN seq < CAST(? AS INTEGER) THEN CAST(? AS INTEGER) ELSE seq END WHERE id = 1", [event.seq, event.seq]);
      });
      return;
    }
    if ((await processChange(event.change)) > 0) sendSoon();
  };

  /** Follows the feed from the stored cursor; after a failure, again from there (what failed is replayed). */
  const follow = async () => {
    const following = ++generation;
    subscription?.close();
    subscription = null;
    try {
      // A fresh dispatcher starts at the present: hooks are about what happens from now on. The
      // present is asked for only then (on PostgreSQL it may wait behind open writers).
      const stored = await read((tx) => tx.get<{ seq: number }>("SELECT seq FROM webhook_cursor WHERE id = 1"));
      const after = stored?.seq ?? (await latestChangeSeq().then((present) => write((tx) => cursorIn(tx, present))));
      if (stopped || following !== generation) return;
      const opened = await subscribe({ after, filter: { subjects: ["entry", "handoff", "shift_handoff"] } }, (event) => {
        processing = processing.then(async () => {
          if (following !== generation) return;
          try {
            await handle(event);
          } catch (error) {
            console.error("baton: webhooks could not process a change; following the feed again from the stored cursor", error);
            followLater();
          }
        });
      });
      if (stopped || following !== generation) opened.close();
      else subscription = opened;
      markReady();
    } catch (error) {
      console.error("baton: webhooks could not follow the change feed; retrying", error);
      followLater();
    }
  };
  const followLater = () => {
    generation++;
    subscription?.close();
    subscription = null;
    if (stopped || retry) return;
    retry = setTimeout(() => ((retry = null), void track(follow())), FOLLOW_RETRY_MS);
    retry.unref?.();
  };

  void track(follow());
  const timer = setInterval(() => void sendDue(), options.sendIntervalMs);
  timer.unref?.();
  const waiting = startWaitingWatch(options.waitingCheckMs, sendSoon);
  void sendDue();

  return {
    ready,
    sendDue,
    stop: async () => {
      stopped = true;
      markReady();
      claiming = false;
      generation++;
      subscription?.close();
      if (retry) clearTimeout(retry);
      clearInterval(timer);
      waiting.stop();
      if (kick) clearImmediate(kick);
      await Promise.all(underWay);
      await processing;
      const finished = Promise.all([...sending.values()].map((entry) => entry.done));
      let grace: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([finished, new Promise((resolve) => (grace = setTimeout(resolve, options.stopGraceMs)))]);
      clearTimeout(grace);
      await release([...sending.values()]).catch((error: unknown) => console.error("baton: could not hand back webhook deliveries; they are sent once their lease runs out", error));
      runningDispatchers().delete(running);
    },
  };
}
