import "server-only";
import { changesAfter, latestChangeSeq, MAX_REPLAY, subscribe, type Change, type FeedEvent, type Subscription } from "../changes";
import { claimDue, handBack, processChanges, record, skipCursorTo, startCursorAt, storedCursor, type Due } from "./queue";
import { PRUNE_DELIVERIES_EVERY_MS, startDeliveryPruning } from "./retention";
import { attempt } from "./send";
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
 * lease written into the row: its claimed_until is set to the end of the lease, in one
 * transaction that takes the rows (SQLite's write lock; on PostgreSQL `FOR UPDATE SKIP LOCKED`,
 * so instances claim different rows without waiting for each other), and recording the outcome
 * clears it. Only the claimer records the outcome, and only while the row still carries its
 * lease. The claim is apart from next_attempt_at, which Resume and Redeliver set to now: neither
 * makes a delivery in flight due again (Redeliver refuses it, Resume leaves it to its outcome). A
 * delivery claimed by an instance that died is due again once the lease runs out, and another
 * instance sends it; one stopped gracefully hands its claims back at once (`stop`,
 * `releaseClaimedDeliveries`). A delivery deleted with its hook while it was sent is sent that
 * once, and its outcome dropped.
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
/**
 * Sends to one hook in flight at once from this process. Claims come every second whatever is in
 * flight, so without it a receiver that hangs had a new connection opened every tenth of a second
 * until its first failures came back (80 open at once), and a slow one as many for as long as it
 * stayed slow. Past it, the hook's next delivery is claimed when one of its sends ends.
 */
export const MAX_IN_FLIGHT_PER_HOOK = 4;
/** After the feed could not be followed (the database away), how long before trying again from the cursor. */
const FOLLOW_RETRY_MS = SECOND;
/** Changes turned into deliveries in one transaction. */
const PROCESS_BATCH = 500;
/**
 * Changes waiting to be processed, at most: a dispatcher further behind (a bulk import wrote a
 * million entries) drops them and follows the feed again from its stored cursor, as after a
 * restart, instead of holding them all in memory. Above MAX_REPLAY, so that a replay fits.
 */
const MAX_UNPROCESSED = 2 * MAX_REPLAY;

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
  /** How often finished deliveries past their retention are deleted (lib/webhooks/retention.ts); also once at the start. */
  pruneEveryMs?: number;
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
    pruneEveryMs: overrides.pruneEveryMs ?? PRUNE_DELIVERIES_EVERY_MS,
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
        // A delivery deleted with its hook meanwhile has no log left to write to: nothing to say.
        if ((await record(due, result, options)) === "not ours") console.error(`baton: webhook delivery ${due.id} was no longer this server's claim when its answer came; not recorded`);
      } catch (error) {
        console.error(`baton: could not record webhook delivery ${due.id}`, error);
      } finally {
        sending.delete(due.id);
        // Room for this hook's next delivery.
        sendSoon();
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

  /** Claims what is due, within each hook's MAX_IN_FLIGHT_PER_HOOK; runs one at a time (claimTurn), after the sends the one before started. */
  const claim = async (): Promise<Due[]> => {
    const inFlight = new Map<number, number>();
    for (const { due } of sending.values()) inFlight.set(due.webhook_id, (inFlight.get(due.webhook_id) ?? 0) + 1);
    const full = [...inFlight].filter(([, count]) => count >= MAX_IN_FLIGHT_PER_HOOK).map(([hook]) => hook);
    let claimed: Due[];
    try {
      claimed = await claimDue(SEND_BATCH, options.leaseMs, full);
    } catch (error) {
      console.error("baton: the webhook dispatcher could not claim from its queue; retrying", error);
      return [];
    }
    const kept: Due[] = [];
    const back: Due[] = [];
    for (const due of claimed) {
      const count = inFlight.get(due.webhook_id) ?? 0;
      // Stopped while claiming, or past the hook's allowance: back at once rather than after the lease.
      if (!claiming || count >= MAX_IN_FLIGHT_PER_HOOK) back.push(due);
      else {
        kept.push(due);
        inFlight.set(due.webhook_id, count + 1);
      }
    }
    if (back.length > 0) await handBack(back).catch((error: unknown) => console.error("baton: could not hand back webhook deliveries; they are sent once their lease runs out", error));
    return kept;
  };

  let claimTurn: Promise<unknown> = Promise.resolve();
  const sendDue = async () => {
    if (!claiming) return;
    const turn = claimTurn.then(async () => (await track(claim())).map(send));
    claimTurn = turn.catch(() => undefined);
    await Promise.all(await turn);
  };
  const sendSoon = () => {
    if (claiming) kick ??= setImmediate(() => ((kick = null), void sendDue()));
  };

  // Feed events are processed one after another, in seq order, in batches: the cursor only moves forward.
  let subscription: Subscription | null = null;
  let unprocessed: FeedEvent[] = [];
  let processing: Promise<void> = Promise.resolve();
  let working = false;
  let generation = 0;
  let retry: ReturnType<typeof setTimeout> | null = null;
  let markReady = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  /**
   * The changes from the stored cursor up to `upTo` that the feed did not replay (it replays
   * MAX_REPLAY at most, and said so with a reset at `upTo`, where its live changes begin), read
   * from the table a batch at a time: a dispatcher stopped while agents wrote on, or one that fell
   * behind a bulk import, loses none that is still kept.
   */
  const catchUp = async (upTo: number, reason: string) => {
    let after = (await storedCursor()) ?? upTo;
    // Ahead of every change this database handed out: nothing to read, and nothing to move back to.
    if (after > upTo) console.error(`baton: webhooks skipped changes up to seq ${after}: ${reason}`);
    while (after < upTo) {
      // Stopped: the stored cursor stays where the last batch left it, for the next start.
      if (stopped) return;
      const { changes, goneUpTo } = await changesAfter(after, upTo, PROCESS_BATCH);
      if (goneUpTo !== null) console.error(`baton: webhooks skipped changes up to seq ${goneUpTo}: they are no longer kept`);
      if (changes.length === 0) break;
      if ((await processChanges(changes)) > 0) sendSoon();
      after = changes[changes.length - 1].seq;
    }
    await skipCursorTo(upTo);
  };

  const handle = async (events: FeedEvent[]) => {
    let changes: Change[] = [];
    const flush = async () => {
      if (changes.length > 0 && (await processChanges(changes)) > 0) sendSoon();
      changes = [];
    };
    for (const event of events) {
      if (event.kind === "change") {
        changes.push(event.change);
        continue;
      }
      await flush();
      await catchUp(event.seq, event.reason);
    }
    await flush();
  };

  // One loop at a time; what it takes is always the current following's (followLater empties the list).
  const work = () => {
    if (working) return;
    working = true;
    processing = (async () => {
      while (unprocessed.length > 0) {
        const batch = unprocessed.splice(0, PROCESS_BATCH);
        try {
          await handle(batch);
        } catch (error) {
          console.error("baton: webhooks could not process a change; following the feed again from the stored cursor", error);
          followLater();
        }
      }
      working = false;
    })();
  };

  const take = (following: number) => (event: FeedEvent) => {
    if (following !== generation) return;
    if (unprocessed.length >= MAX_UNPROCESSED) {
      console.error(`baton: webhooks fell more than ${MAX_UNPROCESSED} changes behind the feed; following it again from the stored cursor`);
      followLater();
      return;
    }
    unprocessed.push(event);
    work();
  };

  /** Follows the feed from the stored cursor; after a failure, again from there (what failed is replayed). */
  const follow = async () => {
    const following = ++generation;
    subscription?.close();
    subscription = null;
    try {
      // A fresh dispatcher starts at the present: hooks are about what happens from now on. The
      // present is asked for only then (on PostgreSQL it may wait behind open writers).
      const stored = await storedCursor();
      const after = stored === null ? await startCursorAt(await latestChangeSeq()) : stored;
      if (stopped || following !== generation) return;
      const opened = await subscribe({ after, filter: { subjects: ["entry", "handoff", "shift_handoff"] } }, take(following));
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
    unprocessed = [];
    if (stopped || retry) return;
    retry = setTimeout(() => ((retry = null), void track(follow())), FOLLOW_RETRY_MS);
    retry.unref?.();
  };

  void track(follow());
  const timer = setInterval(() => void sendDue(), options.sendIntervalMs);
  timer.unref?.();
  const waiting = startWaitingWatch(options.waitingCheckMs, sendSoon);
  const pruning = startDeliveryPruning(options.pruneEveryMs);
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
      // What was not processed stays behind the stored cursor, for the next start.
      unprocessed = [];
      if (retry) clearTimeout(retry);
      clearInterval(timer);
      waiting.stop();
      if (kick) clearImmediate(kick);
      await pruning.stop();
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
