/**
 * lib/webhooks: the operator's webhooks (tables webhooks, webhook_deliveries, webhook_attempts,
 * webhook_cursor). hooks.ts registers and manages hooks and their delivery log; dispatcher.ts,
 * started by Baton's server (by each instance sharing a PostgreSQL database), turns the change
 * feed into signed, retried deliveries, each claimed by one instance at a time. A server shutting
 * down stops its dispatcher, or calls releaseClaimedDeliveries, to hand back what it claimed.
 * retention.ts deletes finished deliveries 30 days after they finished (the dispatcher runs it).
 * Client-safe names and views live in ./schemas.
 */
import "server-only";

export {
  createWebhook,
  deliveryAttempts,
  failedDeliveriesSince,
  listWebhooks,
  pauseWebhook,
  recentDeliveries,
  redactStoredDeliveriesIn,
  redeliver,
  removeWebhook,
  resumeWebhook,
  type AttemptView,
  type FailedDelivery,
} from "./hooks";
export {
  CLAIM_LEASE_MS,
  DELIVERY_TIMEOUT_MS,
  MAX_IN_FLIGHT_PER_HOOK,
  PAUSE_AFTER_FAILURES,
  releaseClaimedDeliveries,
  RETRY_SCHEDULE_MS,
  startWebhookDispatcher,
  STOP_GRACE_MS,
  type DispatcherOptions,
  type WebhookDispatcher,
} from "./dispatcher";
export { KEEP_FINISHED_DELIVERIES_MS, pruneDeliveries } from "./retention";
export { SIGNATURE_HEADER, signatureHeader, verifySignature } from "./signature";
export * from "./schemas";
