/**
 * How far a shift handoff's injection prompt got, shared by the server and the agent page.
 * Client-safe: no server imports.
 *
 * queued → typed (tmux accepted the literal text) → submitted (after Enter, the prompt's end
 * was seen on the pane) → read (the successor fetched the document) → acted (the successor
 * reported its context). failed: tmux refused; the delivery text says why.
 */
export const DELIVERY_STATES = ["queued", "typed", "submitted", "read", "acted", "failed"] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** A delivery that has not reached submitted this long after the handoff is flagged. */
export const SUBMIT_DEADLINE_MS = 30_000;

const RANK: Record<DeliveryState, number> = { failed: 0, queued: 1, typed: 2, submitted: 3, read: 4, acted: 5 };

/**
 * The state after `next` happened to a delivery in `current`: steps only move forward (a
 * successor may read its document before the bridge has recorded submitted), and a later step
 * lifts a failure (the successor found the document anyway).
 */
export function advancedState(current: DeliveryState | null, next: DeliveryState): DeliveryState {
  if (current === null) return next;
  if (next === "failed") return RANK[current] >= RANK.submitted ? current : "failed";
  return RANK[next] > RANK[current] ? next : current;
}

export type DeliveryProgress = {
  deliveryState: DeliveryState | null;
  delivery: string | null;
  createdAt: string;
  /** The successor's status; null when it has none. */
  successorStatus: string | null;
};

/**
 * A prompt that did not reach the successor's pane. "stalled": the successor is at work and
 * Retry delivery may still type it (flagged everywhere, the desk's Needs you now too); "successor
 * ended": it was never delivered, and there is no one left to deliver it to (Retry is refused:
 * the ended agent's pane may run anything by now), so it is said, not flagged.
 */
export type DeliveryProblem = { kind: "stalled" | "successor ended"; message: string };

/**
 * True when the prompt was meant for a tmux pane and has not been seen entered there: failed,
 * or still queued/typed more than SUBMIT_DEADLINE_MS after the handoff.
 */
function notSeenEntered(record: DeliveryProgress, now: number): boolean {
  if (record.delivery === "no target" || record.deliveryState === null) return false;
  if (record.deliveryState === "failed") return true;
  if (record.deliveryState !== "queued" && record.deliveryState !== "typed") return false;
  return now - Date.parse(record.createdAt) > SUBMIT_DEADLINE_MS;
}

/**
 * The one rule for a delivery that did not arrive, and the one sentence every page and door says
 * of it: tmux's own reason when it refused, else that the prompt was not seen entered. Null when
 * the prompt arrived, is still on its way, or had no pane to go to. Computed when read.
 */
export function deliveryProblemOf(record: DeliveryProgress, now = Date.now()): DeliveryProblem | null {
  if (!notSeenEntered(record, now)) return null;
  const why =
    record.deliveryState === "failed"
      ? record.delivery?.replace(/^failed: /, "") || "tmux gave no reason"
      : `it was not seen entered within ${SUBMIT_DEADLINE_MS / 1000} s`;
  if (record.successorStatus !== null && record.successorStatus !== "active") {
    return { kind: "successor ended", message: `Not delivered; the successor has ended, so there is no one to deliver it to (${why}).` };
  }
  return { kind: "stalled", message: `The prompt did not reach the successor's pane: ${why}.` };
}
