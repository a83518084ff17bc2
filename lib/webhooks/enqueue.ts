import "server-only";
import { databaseNow, storedDate, type Tx } from "../database";
import { isoOf } from "../iso-date";
import { eventsOf } from "./hooks";
import type { WebhookEvent } from "./schemas";

/**
 * Queueing an event for the hooks that want it: the one way rows enter webhook_deliveries, for
 * events the change feed brings (lib/webhooks/dispatcher.ts) and those time brings
 * (lib/webhooks/waiting.ts).
 */
export type Queued = { event: WebhookEvent; entryType?: string; data: Record<string, unknown> };

/** A hook as queueing reads it: its id and the events (and entry types) it wants. */
export type Hook = { id: number; wanted: ReturnType<typeof eventsOf> };

/** Every hook, read once per transaction by a caller that queues several events. */
export async function hooksIn(tx: Tx): Promise<Hook[]> {
  const rows = await tx.all<{ id: number; events: string }>("SELECT id, events FROM webhooks ORDER BY id");
  return rows.map((row) => ({ id: row.id, wanted: eventsOf(row) }));
}

/** Queues `queued` for every one of `hooks` (hooksIn) that wants it, in the caller's transaction; returns how many rows were added. */
export async function enqueue(tx: Tx, hooks: readonly Hook[], queued: Queued[], occurredAt: string): Promise<number> {
  if (queued.length === 0) return 0;
  // Due now by the database's clock, which claimDue compares with: this machine's may run ahead.
  let now: string | undefined;
  let added = 0;
  for (const { id, wanted } of hooks) {
    for (const item of queued) {
      if (!(wanted.events as string[]).includes(item.event)) continue;
      if (item.event === "entry.created" && wanted.types.length > 0 && !wanted.types.includes(item.entryType as never)) continue;
      // As the API writes dates (…Z): a raised handoff.waiting or delivery.failed comes stamped as stored (…+00:00).
      const payload = JSON.stringify({ event: item.event, occurredAt: isoOf(occurredAt), data: item.data });
      now ??= storedDate(await databaseNow(tx));
      await tx.run("INSERT INTO webhook_deliveries (webhook_id, event, payload, status, attempts, next_attempt_at, created_at) VALUES (?, ?, ?, 'pending', 0, ?, ?)", [
        id,
        item.event,
        payload,
        now,
        now,
      ]);
      added++;
    }
  }
  return added;
}

/** Whether any hook wants `event` (so work that only feeds it can be skipped). */
export async function anyHookWants(tx: Tx, event: Queued["event"]): Promise<boolean> {
  const hooks = await hooksIn(tx);
  return hooks.some((hook) => (hook.wanted.events as string[]).includes(event));
}
