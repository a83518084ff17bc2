import "server-only";
import { storedDate, type Sql } from "../sqlite";
import { eventsOf } from "./hooks";
import type { WebhookEvent } from "./schemas";

/**
 * Queueing an event for the hooks that want it: the one way rows enter webhook_deliveries, for
 * events the change feed brings (lib/webhooks/dispatcher.ts) and those time brings
 * (lib/webhooks/waiting.ts).
 */
export type Queued = { event: WebhookEvent; entryType?: string; data: Record<string, unknown> };

/** Queues `queued` for every hook that wants it, in the caller's transaction; returns how many rows were added. */
export function enqueue(tx: Sql, queued: Queued[], occurredAt: string): number {
  if (queued.length === 0) return 0;
  const hooks = tx.statement("SELECT id, events FROM webhooks").all() as { id: number; events: string }[];
  const now = storedDate();
  let added = 0;
  for (const hook of hooks) {
    const wanted = eventsOf(hook);
    for (const item of queued) {
      if (!(wanted.events as string[]).includes(item.event)) continue;
      if (item.event === "entry.created" && wanted.types.length > 0 && !wanted.types.includes(item.entryType as never)) continue;
      const payload = JSON.stringify({ event: item.event, occurredAt, data: item.data });
      tx.statement("INSERT INTO webhook_deliveries (webhook_id, event, payload, status, attempts, next_attempt_at, created_at) VALUES (?, ?, ?, 'pending', 0, ?, ?)").run(
        hook.id,
        item.event,
        payload,
        now,
        now,
      );
      added++;
    }
  }
  return added;
}

/** Whether any hook wants `event` (so work that only feeds it can be skipped). */
export function anyHookWants(tx: Sql, event: Queued["event"]): boolean {
  const hooks = tx.statement("SELECT events FROM webhooks").all() as { events: string }[];
  return hooks.some((hook) => (eventsOf(hook).events as string[]).includes(event));
}
