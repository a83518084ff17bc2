/**
 * What a webhook can ask for, shared by lib/webhooks and the dashboard's form. Client-safe.
 */
import { ENTRY_TYPES, type EntryType } from "../handoffs/schemas";

export const WEBHOOK_EVENTS = ["entry.created", "question.asked", "handoff.waiting", "handoff.closed", "agent.handed_off", "delivery.failed"] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const WEBHOOK_EVENT_LABELS: Record<WebhookEvent, string> = {
  "entry.created": "entry.created: any new entry (optionally only some types)",
  "question.asked": "question.asked: a question entry",
  "handoff.waiting": "handoff.waiting: new entries stayed unread by the other side for BATON_WAITING_AFTER",
  "handoff.closed": "handoff.closed: a handoff was closed",
  "agent.handed_off": "agent.handed_off: an agent wrote its shift handoff",
  "delivery.failed": "delivery.failed: another delivery gave up after a day of retries",
};

export { ENTRY_TYPES, type EntryType };

export type WebhookStatus = "active" | "paused";
export type DeliveryStatus = "pending" | "delivered" | "failed";

export type WebhookView = {
  id: number;
  url: string;
  events: WebhookEvent[];
  /** entry.created only for these entry types; empty means every type. */
  types: EntryType[];
  status: WebhookStatus;
  consecutiveFailures: number;
  createdAt: string;
};

export type DeliveryView = {
  id: number;
  webhookId: number;
  event: WebhookEvent;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string;
  lastStatus: number | null;
  lastResponseMs: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
};
