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
};

/**
 * True when the prompt was meant for a tmux pane and has not been seen entered there: failed,
 * or still queued/typed more than SUBMIT_DEADLINE_MS after the handoff. Computed when shown.
 */
export function isDeliveryStalled(record: DeliveryProgress, now = Date.now()): boolean {
  if (record.delivery === "no target" || record.deliveryState === null) return false;
  if (record.deliveryState === "failed") return true;
  if (record.deliveryState !== "queued" && record.deliveryState !== "typed") return false;
  return now - Date.parse(record.createdAt) > SUBMIT_DEADLINE_MS;
}

/**
 * The one sentence every page says of a stalled delivery (the desk, the agent's steps, the
 * successor's page): tmux's own reason when it refused, else that the prompt was not seen
 * entered. Null when the delivery is not stalled.
 */
export function deliveryProblemOf(record: DeliveryProgress, now = Date.now()): string | null {
  if (!isDeliveryStalled(record, now)) return null;
  if (record.deliveryState === "failed") return `The prompt did not reach the successor's pane: ${record.delivery?.replace(/^failed: /, "") || "tmux gave no reason"}.`;
  return `The prompt did not reach the successor's pane: it was not seen entered within ${SUBMIT_DEADLINE_MS / 1000} s.`;
}
