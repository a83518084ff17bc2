import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DEFAULT_WAITING_AFTER_MS, findWaitingHandoffs, waitingAfterMs } from "../lib/handoffs/attention";
import { addEntry, createHandoff, markRead } from "../lib/handoffs";
import { storedDate, write } from "../lib/database";
import { closeHandoffIn } from "../lib/handoffs/store";
import { createWebhook, startWebhookDispatcher, type WebhookDispatcher } from "../lib/webhooks";
import { HANDOFF_WAITING, raiseWaitingEvents } from "../lib/webhooks/waiting";
import { rowsOf } from "./support/rows";

const MINUTE = 60_000;
const later = (minutes: number) => new Date(Date.now() + minutes * MINUTE);

describe("findWaitingHandoffs", () => {
  it("lists a handoff whose new entries stay unread by the other side past the threshold, per side, until that side reads", async () => {
    const { handoff, entries } = await createHandoff({ title: "Waiting for code", content: "Plan", asClient: "chat" });
    await addEntry({ id: handoff.id, type: "task", content: "Do it", asClient: "chat" });
    const mine = async (options: Parameters<typeof findWaitingHandoffs>[0]) => (await findWaitingHandoffs(options)).filter((item) => item.handoff.id === handoff.id);

    expect(await mine({})).toEqual([]); // written just now: not waiting yet
    const waiting = await mine({ now: later(31) });
    expect(waiting).toHaveLength(1);
    expect(waiting[0]).toMatchObject({ waitingFor: "code", firstUnreadSeq: entries[0].seq, unreadCount: 2, since: entries[0].createdAt });
    expect(waiting[0].handoff).toMatchObject({ id: handoff.id, title: "Waiting for code" });
    expect(await mine({ now: later(31), olderThanMs: 60 * MINUTE })).toEqual([]);

    await markRead({ id: handoff.id, asClient: "code" });
    expect(await mine({ now: later(31) })).toEqual([]);
    // Code writes: now chat has not read it.
    const { entry } = await addEntry({ id: handoff.id, type: "question", content: "7 or 30 days?", asClient: "code" });
    expect(await mine({ now: later(31) })).toMatchObject([{ waitingFor: "chat", firstUnreadSeq: entry.seq, unreadCount: 1 }]);
    await expect(findWaitingHandoffs({ olderThanMs: -1 })).rejects.toThrow(/olderThanMs must be a whole number/);
  });

  it("keeps handoff_unread, which it reads, the first unread entry's time per active handoff and side, whatever writes", async () => {
    const { handoff } = await createHandoff({ title: "Unread since", content: "Plan", asClient: "chat" });
    const { handoff: other } = await createHandoff({ title: "Unread since, closed", content: "Plan", asClient: "code" });
    const ids = [handoff.id, other.id];
    // What the table must hold, computed from the entries themselves.
    const truth = () =>
      rowsOf<{ handoff_id: string; side: string; since: string }>(
        `SELECT h.id AS handoff_id, s.side, (SELECT MIN(e.created_at) FROM handoff_entries e WHERE e.handoff_id = h.id
           AND e.seq = (SELECT MIN(f.seq) FROM handoff_entries f WHERE f.handoff_id = h.id AND f.seq > CASE s.side WHEN 'chat' THEN h.chat_last_seen ELSE h.code_last_seen END)) AS since
         FROM handoffs h CROSS JOIN (SELECT 'chat' AS side UNION ALL SELECT 'code') s
         WHERE h.id IN (?, ?) AND h.status = 'active' ORDER BY 1, 2`,
        ids,
      ).then((rows) => rows.filter((row) => row.since !== null).map((row) => ({ ...row, since: new Date(row.since).toISOString() })));
    const stored = () =>
      rowsOf<{ handoff_id: string; side: string; since: string }>("SELECT handoff_id, side, since FROM handoff_unread WHERE handoff_id IN (?, ?) ORDER BY 1, 2", ids).then((rows) =>
        rows.map((row) => ({ ...row, since: new Date(row.since).toISOString() })),
      );
    const check = async (sides: string[]) => {
      const expected = await truth();
      expect(expected.map((row) => `${row.handoff_id} ${row.side}`)).toEqual([...sides].sort());
      expect(await stored()).toEqual(expected);
    };
    await check([`${handoff.id} code`, `${other.id} chat`]);
    await addEntry({ id: handoff.id, type: "task", content: "Do it", asClient: "chat" });
    // Writing reads the thread: code, which wrote last, has nothing new.
    await addEntry({ id: handoff.id, type: "question", content: "When?", asClient: "code" });
    await check([`${handoff.id} chat`, `${other.id} chat`]);
    await markRead({ id: handoff.id, asClient: "chat" });
    await check([`${other.id} chat`]);
    // A cursor set by hand into the thread, and an entry written by SQL, not through lib/handoffs.
    const [second] = await rowsOf<{ seq: number }>("SELECT seq FROM handoff_entries WHERE handoff_id = ? ORDER BY seq LIMIT 1 OFFSET 1", [handoff.id]);
    await write((tx) => tx.run("UPDATE handoffs SET code_last_seen = ? WHERE id = ?", [second.seq, handoff.id]));
    await check([`${handoff.id} code`, `${other.id} chat`]);
    await write((tx) =>
      tx.run("INSERT INTO handoff_entries (handoff_id, number, from_client, type, content, created_at) VALUES (?, 9, 'code', 'progress', 'by hand', ?)", [handoff.id, storedDate()]),
    );
    await check([`${handoff.id} chat`, `${handoff.id} code`, `${other.id} chat`]);
    await markRead({ id: handoff.id, asClient: "code" });
    await write((tx) => closeHandoffIn(tx, other.id));
    await check([`${handoff.id} chat`]);
  });

  it("reads BATON_WAITING_AFTER as 45s, 30m, 2h, 500ms or minutes, and a wrong value as the default with one warning", () => {
    expect(waitingAfterMs(undefined)).toBe(DEFAULT_WAITING_AFTER_MS);
    expect(waitingAfterMs("45s")).toBe(45_000);
    expect(waitingAfterMs("2h")).toBe(2 * 60 * MINUTE);
    expect(waitingAfterMs("500ms")).toBe(500);
    expect(waitingAfterMs("10")).toBe(10 * MINUTE);
    const warn = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      expect(waitingAfterMs("soon")).toBe(DEFAULT_WAITING_AFTER_MS);
      expect(waitingAfterMs("soon")).toBe(DEFAULT_WAITING_AFTER_MS);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toMatch(/BATON_WAITING_AFTER="soon" is not a duration/);
    } finally {
      warn.mockRestore();
    }
  });
});

describe("handoff.waiting webhook", () => {
  let dispatcher: WebhookDispatcher | null = null;
  const servers: http.Server[] = [];
  afterEach(async () => {
    await dispatcher?.stop();
    dispatcher = null;
    delete process.env.BATON_WAITING_AFTER;
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
    await write((tx) => tx.run("DELETE FROM webhooks"));
  });

  async function receiver(): Promise<{ url: string; bodies: { event: string; occurredAt: string; data: Record<string, unknown> }[] }> {
    const bodies: { event: string; occurredAt: string; data: Record<string, unknown> }[] = [];
    const server = http.createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString()));
      request.on("end", () => {
        bodies.push(JSON.parse(body));
        response.writeHead(200).end();
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, bodies };
  }

  /** A hook subscribed to handoff.waiting, as the form, the CLI and the API subscribe one. */
  const subscribe = (url: string) => createWebhook({ url, events: [HANDOFF_WAITING] });

  it("is raised once per waiting episode, by the running server, and again after the side read and something new waited", async () => {
    process.env.BATON_WAITING_AFTER = "300ms";
    const { url, bodies: all } = await receiver();
    const { handoff, entries } = await createHandoff({ title: "Left unread", content: "Please review", project: "shop", asClient: "chat" });
    // Other tests' handoffs wait too: these are this one's events.
    const ours = () => all.filter((body) => (body.data.handoff as { id: string }).id === handoff.id);
    expect(await raiseWaitingEvents()).toBe(0); // no hook wants it: nothing looked at, nothing kept
    await subscribe(url);
    dispatcher = startWebhookDispatcher({ sendIntervalMs: 20, waitingCheckMs: 100 });
    await dispatcher.ready;

    const deadline = Date.now() + 5_000;
    while (ours().length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ours().length).toBe(1);
    expect(ours()[0]).toMatchObject({
      event: "handoff.waiting",
      data: { handoff: { id: handoff.id, title: "Left unread", project: "shop" }, waitingFor: "code", firstUnreadSeq: entries[0].seq, firstUnreadNumber: 1, unreadCount: 1, since: entries[0].createdAt },
    });
    // When it was raised, written as the API writes dates (it came as 2026-…+00:00).
    expect(ours()[0].occurredAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    // More entries while code still has not read: the same episode, not raised again.
    await addEntry({ id: handoff.id, type: "task", content: "And the tests", asClient: "chat" });
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(ours().length).toBe(1);
    expect(await raiseWaitingEvents()).toBe(0);

    // Code reads, chat writes again and it waits again: a new episode.
    await markRead({ id: handoff.id, asClient: "code" });
    const { entry } = await addEntry({ id: handoff.id, type: "question", content: "Any news?", asClient: "chat" });
    const again = Date.now() + 5_000;
    while (ours().length < 2 && Date.now() < again) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ours().length).toBe(2);
    // The number people see (#3 here), beside the seq: a receiver links to #entry-3, which no seq names.
    expect(ours()[1].data).toMatchObject({ waitingFor: "code", firstUnreadSeq: entry.seq, firstUnreadNumber: 3, unreadCount: 1 });

    // A restarted server raises none of these again.
    await dispatcher.stop();
    dispatcher = startWebhookDispatcher({ sendIntervalMs: 20, waitingCheckMs: 100 });
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(ours().length).toBe(2);
  });

  it("is raised once when two instances look at the same moment", async () => {
    const { handoff } = await createHandoff({ title: "Seen by two", content: "Anyone?", asClient: "code" });
    await subscribe("http://127.0.0.1:9/hook");
    // Two looks in flight together: on PostgreSQL each in its own connection and transaction.
    await Promise.all([raiseWaitingEvents({ now: later(31) }), raiseWaitingEvents({ now: later(31) })]);
    const raised = await rowsOf<{ payload: string }>("SELECT payload FROM webhook_deliveries WHERE event = ?", [HANDOFF_WAITING]);
    expect(raised.filter((row) => (JSON.parse(row.payload) as { data: { handoff: { id: string } } }).data.handoff.id === handoff.id)).toHaveLength(1);
  });
});
