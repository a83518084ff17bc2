import "server-only";
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { Conflict, NotFound } from "../errors";
import { databaseNow, lockRows, MAX_INT4, read, storedDate, write, type Tx } from "../database";
import type { StoredTextRedactor } from "../secrets/stored-redactor";
import { parseInput, textFieldError } from "../validation";
import { withoutCredentials } from "../url-credentials";
import { webhookUrlProblem } from "./addresses";
import { ENTRY_TYPES, WEBHOOK_EVENTS, type DeliveryView, type EntryType, type WebhookEvent, type WebhookView } from "./schemas";

/** The operator's registered hooks and their delivery log: every read and write of webhooks, webhook_deliveries and webhook_attempts outside the dispatcher's sending loop and the pruning of finished deliveries (retention.ts). */
export const MAX_URL_LENGTH = 2000;

const urlSchema = z
  .string({ error: textFieldError("url") })
  .trim()
  .min(1, { error: "url is required" })
  .max(MAX_URL_LENGTH, { error: `url must be at most ${MAX_URL_LENGTH} characters` })
  .refine((value) => URL.canParse(value) && ["http:", "https:"].includes(new URL(value).protocol), {
    error: "url must be an absolute http:// or https:// address, e.g. https://example.com/baton-hook",
    abort: true,
  })
  .superRefine((value, context) => {
    const problem = webhookUrlProblem(value);
    if (problem) context.addIssue({ code: "custom", message: problem });
  })
  // The address as it is contacted: the parser drops tabs and line breaks and escapes spaces,
  // which stored as typed would show (and split a `webhook list` row) as another address.
  .transform((value) => new URL(value).href);

const createSchema = z
  .object({
    url: urlSchema,
    events: z
      .array(z.enum(WEBHOOK_EVENTS, { error: `events must be among ${WEBHOOK_EVENTS.join(", ")}` }), { error: "events must be a list" })
      .min(1, { error: `events must name at least one of ${WEBHOOK_EVENTS.join(", ")}` }),
    types: z.array(z.enum(ENTRY_TYPES, { error: `types must be among ${ENTRY_TYPES.join(", ")}` })).default([]),
  })
  // Types filter entry.created alone. Without it they used to be dropped without a word, and a
  // script asking for `--events question.asked --types decision` got a hook that ignored half of
  // what it asked: refused, nothing stored, so the caller sees the mistake where it is made.
  .superRefine((data, context) => {
    if (data.types.length > 0 && !data.events.includes("entry.created")) {
      context.addIssue({
        code: "custom",
        path: ["types"],
        message: "types only narrow entry.created, which events does not include: add entry.created to the events, or choose no types",
      });
    }
  });

/** Ids are 32-bit integers on PostgreSQL: a larger one names nothing, and must not reach a query. */
const MAX_ID = MAX_INT4;

const idSchema = z.object({
  id: z.coerce
    .number({ error: "id must be a webhook number" })
    .int({ error: "id must be a whole number" })
    .positive({ error: "id must be positive" })
    .max(MAX_ID, { error: `id must be at most ${MAX_ID}` }),
});

type HookRow = { id: number; url: string; events: string; secret: string; status: string; consecutive_failures: number; created_at: string };
export type StoredEvents = { events: WebhookEvent[]; types: EntryType[] };

export function eventsOf(row: { events: string }): StoredEvents {
  return JSON.parse(row.events) as StoredEvents;
}

const viewOf = (row: HookRow): WebhookView => ({
  id: row.id,
  // A row stored before credentials were refused still never shows them.
  url: withoutCredentials(row.url),
  ...eventsOf(row),
  status: row.status === "paused" ? "paused" : "active",
  consecutiveFailures: row.consecutive_failures,
  createdAt: row.created_at,
});

/** Registers a hook; the secret is returned only here (it is stored to sign with, never shown again). */
export async function createWebhook(input: { url?: unknown; events?: unknown; types?: unknown }): Promise<{ webhook: WebhookView; secret: string }> {
  const data = parseInput(createSchema, input);
  const events = [...new Set(data.events)];
  const types = [...new Set(data.types)];
  const secret = `whsec_${randomBytes(24).toString("base64url")}`;
  const row = await write(
    async (tx) =>
      (await tx.get<HookRow>("INSERT INTO webhooks (url, events, secret, status, consecutive_failures, created_at) VALUES (?, ?, ?, 'active', 0, ?) RETURNING *", [
        data.url,
        JSON.stringify({ events, types }),
        secret,
        storedDate(),
      ]))!,
  );
  return { webhook: viewOf(row), secret };
}

export async function listWebhooks(): Promise<WebhookView[]> {
  return (await read((tx) => tx.all<HookRow>("SELECT * FROM webhooks ORDER BY id"))).map(viewOf);
}

async function hookIn(tx: Tx, id: number): Promise<HookRow> {
  const row = await tx.get<HookRow>(`SELECT * FROM webhooks WHERE id = ?${lockRows(tx)}`, [id]);
  if (!row) throw new NotFound(`no webhook ${id}; \`baton webhook list\` or /settings/webhooks shows the registered ones`);
  return row;
}

export async function removeWebhook(input: { id?: unknown }): Promise<void> {
  const id = parseInput(idSchema, input).id;
  await write(async (tx) => {
    await hookIn(tx, id);
    await tx.run("DELETE FROM webhooks WHERE id = ?", [id]);
  });
}

export async function pauseWebhook(input: { id?: unknown }): Promise<WebhookView> {
  const id = parseInput(idSchema, input).id;
  return write(async (tx) => {
    await hookIn(tx, id);
    return viewOf((await tx.get<HookRow>("UPDATE webhooks SET status = 'paused' WHERE id = ? RETURNING *", [id]))!);
  });
}

/**
 * Resumes a paused hook: its failure count starts over and what waited is sent now. A delivery
 * still being sent (claimed before the pause) is not sent again: its claim holds until its outcome.
 */
export async function resumeWebhook(input: { id?: unknown }): Promise<WebhookView> {
  const id = parseInput(idSchema, input).id;
  return write(async (tx) => {
    await hookIn(tx, id);
    await tx.run("UPDATE webhook_deliveries SET next_attempt_at = ? WHERE webhook_id = ? AND status = 'pending'", [storedDate(await databaseNow(tx)), id]);
    return viewOf((await tx.get<HookRow>("UPDATE webhooks SET status = 'active', consecutive_failures = 0 WHERE id = ? RETURNING *", [id]))!);
  });
}

type DeliveryRow = {
  id: number;
  webhook_id: number;
  event: WebhookEvent;
  payload: string;
  status: DeliveryView["status"];
  attempts: number;
  next_attempt_at: string;
  last_status: number | null;
  last_response_ms: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
};

const deliveryViewOf = (row: DeliveryRow): DeliveryView => ({
  id: row.id,
  webhookId: row.webhook_id,
  event: row.event,
  status: row.status,
  attempts: row.attempts,
  nextAttemptAt: row.next_attempt_at,
  lastStatus: row.last_status,
  lastResponseMs: row.last_response_ms,
  lastError: row.last_error,
  createdAt: row.created_at,
  deliveredAt: row.delivered_at,
});

/** The latest deliveries, newest first (of one hook, or of all). */
export async function recentDeliveries(input: { webhookId?: number; limit?: number } = {}): Promise<DeliveryView[]> {
  const limit = Math.min(Math.max(input.limit ?? 20, 1), 200);
  const rows = await read((tx) =>
    input.webhookId === undefined
      ? tx.all<DeliveryRow>("SELECT * FROM webhook_deliveries ORDER BY id DESC LIMIT ?", [limit])
      : tx.all<DeliveryRow>("SELECT * FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id DESC LIMIT ?", [input.webhookId, limit]),
  );
  return rows.map(deliveryViewOf);
}

export type AttemptView = { status: number | null; responseMs: number; error: string | null; at: string };

export async function deliveryAttempts(deliveryId: number): Promise<AttemptView[]> {
  const rows = await read((tx) =>
    tx.all<{ status: number | null; response_ms: number; error: string | null; at: string }>(
      "SELECT status, response_ms, error, at FROM webhook_attempts WHERE delivery_id = ? ORDER BY id",
      [deliveryId],
    ),
  );
  return rows.map((row) => ({ status: row.status, responseMs: row.response_ms, error: row.error, at: row.at }));
}

/**
 * Re-queues one delivery (whatever became of it) to be sent now, with a fresh day of retries.
 * One being sent right now is refused: queued behind its attempt it would go out again even when
 * that attempt succeeds, and the operator asked because it had not arrived.
 */
export async function redeliver(input: { id?: unknown }): Promise<DeliveryView> {
  const id = parseInput(idSchema, input).id;
  return write(async (tx) => {
    // The database's clock, which leases are written on (claimDue): this machine's may run ahead.
    const now = storedDate(await databaseNow(tx));
    const row = await tx.get<DeliveryRow>(
      "UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = ?, delivered_at = NULL WHERE id = ? AND (claimed_until IS NULL OR claimed_until <= ?) RETURNING *",
      [now, id, now],
    );
    if (row) return deliveryViewOf(row);
    if (!(await tx.get("SELECT id FROM webhook_deliveries WHERE id = ?", [id]))) {
      throw new NotFound(`no delivery ${id}; the recent ones are listed under each webhook at /settings/webhooks`);
    }
    throw new Conflict(`delivery ${id} is being sent right now; Redeliver it once this attempt's outcome shows in its log, if it still needs to go`);
  });
}

/** Deliveries read at a time by the sweep: their payloads carry whole entries. */
const SWEEP_PAGE = 500;

/**
 * The secrets sweep's part (lib/jobs/secrets-sweep.ts): each delivery's payload, sent or waiting,
 * as the redactor answers it. A payload is the entry as it was when the delivery was queued, and
 * a waiting delivery (or a Redeliver) sends exactly it: left alone it would carry a secret the
 * sweep took out of the entry to the receiver. Redacted value by value, it stays the JSON it was.
 */
export async function redactStoredDeliveriesIn(tx: Tx, redactor: StoredTextRedactor): Promise<void> {
  for (let after = 0; ; ) {
    const page = await tx.all<{ id: number; event: string; payload: string }>("SELECT id, event, payload FROM webhook_deliveries WHERE id > ? ORDER BY id LIMIT ?", [after, SWEEP_PAGE]);
    for (const { id, event, payload } of page) {
      const redacted = redactor(`webhook delivery ${id} (${event})`, payload, { document: "json" });
      if (redacted !== null) await tx.run("UPDATE webhook_deliveries SET payload = ? WHERE id = ?", [redacted, id]);
    }
    if (page.length < SWEEP_PAGE) return;
    after = page[page.length - 1].id;
  }
}

export type FailedDelivery = { id: number; webhookId: number; url: string; event: string; lastError: string | null };
const FAILED_PAGE = 20;

/**
 * The failed deliveries whose last attempt comes after an attempt id, a page of them. Read from
 * the attempts after it (the primary key's range: the few made since the last poll), each kept
 * when its delivery failed and it is that delivery's last; looked up one by one, which the limited
 * subquery keeps both planners to. Read from the failed deliveries instead, every poll of every
 * open page went through all of them and each one's attempts.
 */
export const FAILED_SINCE_SQL = `SELECT d.id, d.webhook_id, w.url, d.event, d.last_error, last.attempt_id
  FROM (
    SELECT a.id AS attempt_id, a.delivery_id FROM webhook_attempts a
    WHERE a.id > ? AND (SELECT status FROM webhook_deliveries s WHERE s.id = a.delivery_id) = 'failed'
      AND a.id = (SELECT MAX(later.id) FROM webhook_attempts later WHERE later.delivery_id = a.delivery_id)
    ORDER BY a.id LIMIT ?
  ) last
  JOIN webhook_deliveries d ON d.id = last.delivery_id
  JOIN webhooks w ON w.id = d.webhook_id
  ORDER BY last.attempt_id`;

/**
 * Deliveries that gave up since attempt `after` (their last attempt is newer), oldest first, and
 * the attempt id to ask after next time, read in one snapshot: the dashboard's browser
 * notifications poll this. Keyed by attempt, not delivery, because a delivery gives up a day
 * after it was queued. Without `after`, only the starting point.
 */
export async function failedDeliveriesSince(after?: number): Promise<{ attemptId: number; failed: FailedDelivery[] }> {
  return read(async (tx) => {
    const latest = (await tx.get<{ id: number | null }>("SELECT MAX(id) AS id FROM webhook_attempts"))!.id ?? 0;
    if (after === undefined) return { attemptId: latest, failed: [] };
    // No attempt id goes past MAX_ID: a larger `after` asks for none.
    if (after >= MAX_ID) return { attemptId: after, failed: [] };
    const rows = await tx.all<{ id: number; webhook_id: number; url: string; event: string; last_error: string | null; attempt_id: number }>(FAILED_SINCE_SQL, [after, FAILED_PAGE]);
    const failed = rows.map((row) => ({ id: row.id, webhookId: row.webhook_id, url: withoutCredentials(row.url), event: row.event, lastError: row.last_error }));
    // A full page: resume after its last row, so none beyond it is skipped.
    const attemptId = rows.length === FAILED_PAGE ? rows[rows.length - 1].attempt_id : Math.max(latest, after);
    return { attemptId, failed };
  });
}
