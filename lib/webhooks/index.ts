/**
 * lib/webhooks: the operator's webhooks (tables webhooks, webhook_deliveries, webhook_attempts,
 * webhook_cursor). hooks.ts registers and manages hooks and their delivery log; dispatcher.ts,
 * started by Baton's server, turns the change feed into signed, retried deliveries.
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
  redeliver,
  removeWebhook,
  resumeWebhook,
  type AttemptView,
  type FailedDelivery,
} from "./hooks";
export { DELIVERY_TIMEOUT_MS, PAUSE_AFTER_FAILURES, RETRY_SCHEDULE_MS, startWebhookDispatcher, type DispatcherOptions, type WebhookDispatcher } from "./dispatcher";
export { SIGNATURE_HEADER, signatureHeader, verifySignature } from "./signature";
export * from "./schemas";
