/**
 * The name of the event a handoff raises when its new entries stay unread (lib/webhooks/waiting.ts).
 * Client-safe. lib/webhooks/schemas.ts's WEBHOOK_EVENTS is where hooks subscribe from: the event
 * belongs in that list (and its label) too.
 */
export const HANDOFF_WAITING = "handoff.waiting" as const;
