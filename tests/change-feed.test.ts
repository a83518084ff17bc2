import { execFile } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { registerAgent, updateAgent } from "../lib/agents";
import { changeFeedStats, changeStream, latestChangeSeq, pruneChanges, subscribe, type FeedEvent, type Subscription } from "../lib/changes";
import { databaseFile } from "../lib/config";
import { write } from "../lib/database";
import { addEntry, createHandoff } from "../lib/handoffs";
import { serveApi, type ApiServer } from "./support/api-server";
import { startHttpDoor, stopHttpDoor } from "./support/crash-rig";
import { rowsOf } from "./support/rows";

const run = promisify(execFile);
const worker = path.join(import.meta.dirname, "support", "append-worker.ts");

const open: Subscription[] = [];
afterEach(() => {
  for (const subscription of open.splice(0)) subscription.close();
});

/** Subscribes and collects what arrives; `until` resolves once the events satisfy `predicate`. */
async function collect(options: Parameters<typeof subscribe>[0]) {
  const events: FeedEvent[] = [];
  let wake = () => {};
  const subscription = await subscribe(options, (event) => {
    events.push(event);
    wake();
  });
  open.push(subscription);
  const until = (predicate: (events: FeedEvent[]) => boolean, timeoutMs = 5_000) =>
    new Promise<FeedEvent[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out; got ${JSON.stringify(events)}`)), timeoutMs);
      wake = () => {
        if (!predicate(events)) return;
        clearTimeout(timer);
        resolve(events);
      };
      wake();
    });
  return { events, subscription, until };
}

const changesOf = (events: FeedEvent[]) => events.flatMap((event) => (event.kind === "change" ? [event.change] : []));

describe("the change feed", () => {
  it("delivers a write made by another OS process to an in-process subscriber within a second", async () => {
    const { handoff } = await createHandoff({ title: "fed", content: "start" });
    const feed = await collect({ filter: { handoffId: handoff.id } });
    let arrivedAt = 0;
    const arrived = feed.until((all) => changesOf(all).some((change) => change.subject === "entry")).then((events) => ((arrivedAt = Date.now()), events));
    const { stdout } = await run(process.execPath, ["--import", "tsx", worker, handoff.id, handoff.id, "1", "code"], { env: process.env });
    const [entrySeq] = JSON.parse(stdout.trim().slice(3)) as number[];
    const events = await arrived;
    const entry = changesOf(events).find((change) => change.subject === "entry")!;
    expect(entry).toMatchObject({ action: "created", handoffId: handoff.id, entrySeq, agentId: null });
    expect(entry.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/);
    // The entry's append also updated the handoff (its cursor and updatedAt): both arrive, in seq order.
    const seqs = changesOf(events).map((change) => change.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    // Timed from the write itself (the worker's own start-up takes longer): its entry's stored time, to the millisecond.
    const [{ created_at: writtenAt }] = await rowsOf<{ created_at: string }>("SELECT created_at FROM handoff_entries WHERE seq = ?", [entrySeq]);
    expect(arrivedAt - Date.parse(writtenAt)).toBeLessThan(1_000);
  });

  it("notices this process's own writes too (data_version does not change for them)", async () => {
    const feed = await collect({ filter: { subjects: ["handoff"] } });
    const { handoff } = await createHandoff({ title: "local", content: "start" });
    const events = await feed.until((all) => changesOf(all).some((change) => change.handoffId === handoff.id));
    expect(changesOf(events).find((change) => change.handoffId === handoff.id)).toMatchObject({ subject: "handoff", action: "created" });
  });

  it("filters by handoff, by agent and by subject", async () => {
    const a = await createHandoff({ title: "a", content: "start" });
    const b = await createHandoff({ title: "b", content: "start" });
    const agent = await registerAgent({ personaSlug: "feed-filter" });
    const other = await registerAgent({ personaSlug: "feed-other" });
    const after = await latestChangeSeq();
    const onlyA = await collect({ after, filter: { handoffId: a.handoff.id } });
    const onlyAgent = await collect({ after, filter: { agentId: agent.id } });
    const onlyEntries = await collect({ after, filter: { subjects: ["entry"] } });
    await addEntry({ id: b.handoff.id, type: "progress", content: "to b" });
    await addEntry({ id: a.handoff.id, type: "progress", content: "to a" });
    await updateAgent({ agentId: other.id, contextPercent: 10 });
    await updateAgent({ agentId: agent.id, contextPercent: 42 });
    await onlyAgent.until((all) => all.length >= 1);
    await onlyA.until((all) => changesOf(all).some((change) => change.subject === "entry"));
    await onlyEntries.until((all) => all.length >= 2);
    expect(changesOf(onlyA.events).every((change) => change.handoffId === a.handoff.id)).toBe(true);
    expect(changesOf(onlyAgent.events).map((change) => [change.subject, change.action, change.agentId])).toEqual([["agent", "updated", agent.id]]);
    expect(changesOf(onlyEntries.events).map((change) => change.handoffId)).toEqual([b.handoff.id, a.handoff.id]);
  });

  it("replays exactly the changes after a seq, then continues live without a duplicate", async () => {
    const { handoff } = await createHandoff({ title: "resume", content: "start" });
    const before = await latestChangeSeq();
    for (const content of ["one", "two", "three"]) await addEntry({ id: handoff.id, type: "progress", content });
    const missed = await latestChangeSeq();
    const feed = await collect({ after: before, filter: { handoffId: handoff.id } });
    // The replay is there before subscribe resolves.
    const replayed = changesOf(feed.events);
    expect(replayed.length).toBe(missed - before);
    expect(replayed.map((change) => change.seq)).toEqual(Array.from({ length: missed - before }, (_, index) => before + 1 + index));
    expect(replayed.filter((change) => change.subject === "entry")).toHaveLength(3);
    expect(feed.subscription.cursor).toBe(missed);
    await addEntry({ id: handoff.id, type: "progress", content: "four" });
    const events = await feed.until((all) => changesOf(all).filter((change) => change.subject === "entry").length === 4);
    const seqs = changesOf(events).map((change) => change.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(seqs.every((seq) => seq > before)).toBe(true);
  });

  it("tells a subscriber to refetch (reset) when what it missed was pruned, or its seq is from another database", async () => {
    const { handoff } = await createHandoff({ title: "pruned", content: "start" });
    const old = await latestChangeSeq();
    for (const content of ["one", "two"]) await addEntry({ id: handoff.id, type: "progress", content });
    const latest = await latestChangeSeq();
    expect(await pruneChanges({ keepRows: 1 })).toBeGreaterThan(0);
    const behind = await collect({ after: old });
    expect(behind.events).toEqual([{ kind: "reset", seq: latest, reason: `changes up to seq ${latest - 1} are no longer kept` }]);
    const ahead = await collect({ after: latest + 50 });
    expect(ahead.events).toEqual([{ kind: "reset", seq: latest, reason: `seq ${latest + 50} is ahead of this database's latest change (${latest})` }]);
    // Resuming from what is still kept is not a reset.
    expect((await collect({ after: latest - 1 })).events.map((event) => event.kind)).toEqual(["change"]);
    // Age: everything older than a day goes (here "now" is two days ahead), and the table may end empty.
    await pruneChanges({ now: Date.now() + 2 * 24 * 60 * 60 * 1000 });
    expect((await collect({ after: latest })).events).toEqual([]);
    expect((await collect({ after: latest - 1 })).events.map((event) => event.kind)).toEqual(["reset"]);
  });

  it("prunes in batches with the event loop's turn between them, so the process answers meanwhile", async () => {
    await write((tx) =>
      tx.run("INSERT INTO changes (subject, action) SELECT 'handoff', 'updated' FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 25000) SELECT i FROM n) AS numbers"),
    );
    let pruned = false;
    let timerRan: "during" | "after" | null = null;
    setTimeout(() => (timerRan = pruned ? "after" : "during"), 0);
    const deleted = await pruneChanges({ keepRows: 1 });
    pruned = true;
    expect(deleted).toBeGreaterThanOrEqual(24_999);
    expect(timerRan).toBe("during");
  });

  it("stops checking the database when the last subscriber leaves", async () => {
    const feed = await collect({});
    expect(changeFeedStats().subscribers).toBe(1);
    feed.subscription.close();
    expect(changeFeedStats().subscribers).toBe(0);
    const checks = changeFeedStats().checks;
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(changeFeedStats().checks).toBe(checks);
  });

  it.runIf(process.env.BATON_TEST_ENGINE !== "postgres")(
    "wakes within milliseconds for a database reached through a symbolic link (SQLite keeps the log beside the link's target)",
    async () => {
      const file = databaseFile();
      const linkFolder = fs.mkdtempSync(path.join(path.dirname(file), "linked-"));
      const link = path.join(linkFolder, "baton.db");
      fs.symlinkSync(file, link);
      const ownUrl = process.env.DATABASE_URL;
      process.env.DATABASE_URL = `file:${link}`;
      try {
        const { handoff } = await createHandoff({ title: "linked", content: "start" });
        const arrivedAt = new Map<number, number>();
        open.push(
          await subscribe({ filter: { handoffId: handoff.id, subjects: ["entry"] } }, (event) => {
            if (event.kind === "change" && event.change.entrySeq !== null) arrivedAt.set(event.change.entrySeq, Date.now());
          }),
        );
        // Spaced apart, so each write is its own wake-up: the 100 ms timer alone would leave some of them waiting past 60 ms.
        const { stdout } = await run(process.execPath, ["--import", "tsx", worker, handoff.id, handoff.id, "8", "code", "150"], { env: { ...process.env, DATABASE_URL: ownUrl } });
        const seqs = JSON.parse(stdout.trim().slice(3)) as number[];
        await vi.waitFor(() => expect(arrivedAt.size).toBe(seqs.length), { timeout: 5_000 });
        const written = await rowsOf<{ seq: number; created_at: string }>(`SELECT seq, created_at FROM handoff_entries WHERE seq IN (${seqs.map(() => "?").join(", ")})`, seqs);
        const latencies = written.map(({ seq, created_at }) => arrivedAt.get(seq)! - Date.parse(created_at));
        expect(Math.max(...latencies), `latencies ${latencies.join(", ")} ms`).toBeLessThan(60);
      } finally {
        for (const subscription of open.splice(0)) subscription.close();
        process.env.DATABASE_URL = ownUrl;
        fs.rmSync(linkFolder, { recursive: true, force: true });
      }
    },
    20_000,
  );
});

describe.runIf(process.env.BATON_TEST_ENGINE === "postgres")("the change feed on PostgreSQL", () => {
  /** A connection of its own, as another instance or a psql session would write through. */
  async function connection() {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    clients.push(client);
    return client;
  }
  const clients: pg.Client[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.end().catch(() => undefined);
  });
  /** Appends one change in `client`'s transaction, as a trigger does; answers its seq. */
  const appendChange = async (client: pg.Client, handoffId: string) =>
    (await client.query<{ seq: number }>("INSERT INTO changes (subject, action, handoff_id) VALUES ('handoff', 'updated', $1) RETURNING seq", [handoffId])).rows[0].seq;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it("holds back a change that committed before a lower seq still being written, then hands both out in seq order", async () => {
    const handoffId = "hof_out_of_order";
    const feed = await collect({ filter: { handoffId } });
    const [slow, fast] = [await connection(), await connection()];
    await slow.query("BEGIN");
    const lower = await appendChange(slow, handoffId);
    await fast.query("BEGIN");
    const higher = await appendChange(fast, handoffId);
    expect(higher).toBeGreaterThan(lower);
    await fast.query("COMMIT");
    // Notified and read, but not handed out: the lower seq may still commit.
    await sleep(400);
    expect(changesOf(feed.events)).toEqual([]);
    // A page asking for the latest seq now is not told one past the open transaction's.
    let latest: number | null = null;
    const asking = latestChangeSeq().then((seq) => (latest = seq));
    await sleep(100);
    expect(latest).toBeNull();
    const committed = Date.now();
    await slow.query("COMMIT");
    const events = await feed.until((all) => changesOf(all).length === 2);
    expect(Date.now() - committed).toBeLessThan(1_000);
    expect(changesOf(events).map((change) => change.seq)).toEqual([lower, higher]);
    expect(await asking).toBe(higher);
    // Replay from the table (a reconnecting browser's Last-Event-ID) sees both as well.
    const replayed = await collect({ after: lower - 1, filter: { handoffId } });
    expect(changesOf(replayed.events).map((change) => change.seq)).toEqual([lower, higher]);
  });

  it("moves past the gap a rolled-back transaction leaves, within a second", async () => {
    const handoffId = "hof_rolled_back_gap";
    const feed = await collect({ filter: { handoffId } });
    const [doomed, other] = [await connection(), await connection()];
    await doomed.query("BEGIN");
    const lost = await appendChange(doomed, handoffId);
    await other.query("BEGIN");
    const kept = await appendChange(other, handoffId);
    await other.query("COMMIT");
    await sleep(200);
    expect(changesOf(feed.events)).toEqual([]);
    const rolledBack = Date.now();
    await doomed.query("ROLLBACK");
    const events = await feed.until((all) => changesOf(all).length === 1);
    expect(Date.now() - rolledBack).toBeLessThan(1_000);
    expect(changesOf(events).map((change) => change.seq)).toEqual([kept]);
    expect(lost).toBeLessThan(kept);
  });

  it("listens again after its connection is cut, and catches up on what was written meanwhile", async () => {
    const handoffId = "hof_listener_was_cut";
    const feed = await collect({ filter: { handoffId } });
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const admin = await connection();
      const cut = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN baton_changes'");
      expect(cut.rowCount).toBe(1);
      // Written while no one listens: no notification reaches this feed.
      const whileAway = await appendChange(admin, handoffId);
      await feed.until((all) => changesOf(all).some((change) => change.seq === whileAway), 3_000);
      expect(String(errors.mock.calls[0]?.[0])).toMatch(/lost its PostgreSQL connection/);
      // And it is notified again.
      const listened = Date.now();
      const afterwards = await appendChange(admin, handoffId);
      await feed.until((all) => changesOf(all).some((change) => change.seq === afterwards));
      expect(Date.now() - listened).toBeLessThan(1_000);
      expect(changesOf(feed.events).map((change) => change.seq)).toEqual([whileAway, afterwards]);
    } finally {
      errors.mockRestore();
    }
  });

  /**
   * A TCP relay in front of PostgreSQL that can go silent on the connection that LISTENs (bytes
   * no longer pass either way, nothing is closed), as a NAT or firewall that forgot an idle
   * connection does; connections made after that pass again.
   */
  async function silenceableRelay() {
    const target = new URL(process.env.DATABASE_URL!);
    const listeners: net.Socket[] = [];
    const server = net.createServer((client) => {
      const upstream = net.connect(Number(target.port), target.hostname);
      let silenced = false;
      client.on("data", (chunk) => {
        if (chunk.includes("LISTEN baton_changes")) listeners.push(client);
        if (!silenced) upstream.write(chunk);
      });
      upstream.on("data", (chunk) => void (silenced || client.write(chunk)));
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
      client.on("error", () => upstream.destroy());
      upstream.on("error", () => client.destroy());
      client.once("silence", () => (silenced = true));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = new URL(target);
    url.port = String((server.address() as net.AddressInfo).port);
    return {
      url: url.toString(),
      silenceListeners: () => listeners.splice(0).forEach((socket) => socket.emit("silence")),
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  it("reaches another instance's subscribers within a second again after its listening connection went silent", async () => {
    const relay = await silenceableRelay();
    const door = await startHttpDoor({ DATABASE_URL: relay.url });
    const aborted = new AbortController();
    try {
      const { handoff } = await createHandoff({ title: "silent listener", content: "start" });
      const response = await fetch(`${door.origin}/api/events?handoff=${handoff.id}&subject=entry`, { signal: aborted.signal });
      const arrivals: { at: number; text: string }[] = [];
      void (async () => {
        const reader = response.body!.getReader();
        const decoder = new TextDecoder();
        for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) arrivals.push({ at: Date.now(), text: decoder.decode(chunk.value) });
      })().catch(() => undefined);
      await vi.waitFor(() => expect(arrivals.some((arrival) => arrival.text.includes("event: ready"))), { timeout: 5_000 });
      /** Writes an entry from this process (another instance) and answers how long the door's subscriber waited for it. */
      const latency = async (content: string) => {
        const written = Date.now();
        await addEntry({ id: handoff.id, type: "progress", content });
        await vi.waitFor(() => expect(arrivals.some((arrival) => arrival.text.includes('"subject":"entry"') && arrival.at >= written)).toBe(true), { timeout: 7_000 });
        const arrival = arrivals.find((candidate) => candidate.text.includes('"subject":"entry"') && candidate.at >= written)!;
        arrivals.splice(0, arrivals.indexOf(arrival) + 1);
        return arrival.at - written;
      };
      expect(await latency("before")).toBeLessThan(1_000);
      relay.silenceListeners();
      // Long enough for a silent connection to be found out and replaced.
      await sleep(8_000);
      for (const content of ["after 1", "after 2", "after 3"]) {
        expect(await latency(content)).toBeLessThan(1_000);
        await sleep(1_300);
      }
    } finally {
      aborted.abort();
      await stopHttpDoor(door.door, "SIGTERM");
      await relay.close();
    }
  }, 60_000);

  it("keeps a change that commits while another instance prunes after a quiet day, and hands it out", async () => {
    const handoffId = "hof_committed_while_pruned";
    const feed = await collect({ filter: { handoffId } });
    const [writer, admin] = [await connection(), await connection()];
    // A quiet day: every change kept is older than a day.
    await admin.query("UPDATE changes SET created_at = created_at - interval '2 days'");
    await writer.query("BEGIN");
    const seq = await appendChange(writer, handoffId);
    // Lets the prune read but holds its DELETE (SHARE conflicts with ROW EXCLUSIVE only), so the
    // commit lands between the two, as it does by chance when a write commits during a prune.
    await writer.query("LOCK TABLE changes IN SHARE MODE");
    const pruning = pruneChanges();
    const waitingDelete = "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'DELETE FROM changes%'";
    for (let tries = 0; (await admin.query(waitingDelete)).rowCount === 0; tries++) {
      expect(tries).toBeLessThan(500);
      await sleep(10);
    }
    await writer.query("COMMIT");
    expect(await pruning).toBeGreaterThan(0);
    expect((await admin.query("SELECT seq FROM changes WHERE seq = $1", [seq])).rowCount).toBe(1);
    await feed.until((all) => changesOf(all).some((change) => change.seq === seq), 7_000);
  });
});

/**
 * Reads SSE frames from a response body until `done(frames)` says enough, the stream ends, or the
 * client aborts its request (a browser leaving): then the frames read so far.
 */
async function readFrames(response: Response, done: (frames: string[]) => boolean): Promise<string[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const frames = text.split("\n\n").slice(0, -1);
    if (done(frames)) {
      await reader.cancel();
      return frames;
    }
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch (error) {
      if ((error as Error).name === "AbortError") return text.split("\n\n").filter(Boolean);
      throw error;
    }
    if (chunk.done) return text.split("\n\n").filter(Boolean);
    text += decoder.decode(chunk.value, { stream: true });
  }
}

let api: ApiServer;
beforeAll(async () => {
  api = await serveApi();
});
afterAll(() => api.close());

/** GET /api/events on the server above, over its socket; the request's signal aborts it, as a browser leaving does. */
function GET(request: Request): Promise<Response> {
  const url = new URL(request.url);
  return api.fetch(`${url.pathname}${url.search}`, { headers: request.headers, signal: request.signal });
}

describe("GET /api/events", () => {
  it("frames replayed and live changes as SSE with ids, a retry hint and a ready event; ends when the client goes away", async () => {
    const { handoff } = await createHandoff({ title: "sse", content: "start" });
    const after = await latestChangeSeq();
    await addEntry({ id: handoff.id, type: "question", content: "missed while away" });
    const aborted = new AbortController();
    const response = await GET(new Request(`http://localhost/api/events?after=${after}&handoff=${handoff.id}&subject=entry`, { signal: aborted.signal }));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-cache, no-transform, no-store");
    const live = addEntry({ id: handoff.id, type: "decision", content: "live" });
    const frames = await readFrames(response, (all) => all.filter((frame) => frame.startsWith("id: ") && frame.includes("data: {")).length >= 3);
    await live;
    expect(frames[0]).toBe("retry: 1000");
    const [replayed, ready, pushed] = frames.slice(1);
    expect(replayed).toMatch(/^id: (\d+)\ndata: \{.*"subject":"entry".*\}$/);
    const replayedChange = JSON.parse(replayed.split("\ndata: ")[1]);
    expect(replayed.startsWith(`id: ${replayedChange.seq}\n`)).toBe(true);
    expect(replayedChange).toMatchObject({ subject: "entry", action: "created", handoffId: handoff.id });
    expect(ready).toMatch(/^id: \d+\nevent: ready\ndata: \{"seq":\d+\}$/);
    expect(JSON.parse(pushed.split("\ndata: ")[1])).toMatchObject({ subject: "entry", handoffId: handoff.id });
    expect(Number(/^id: (\d+)/.exec(pushed)![1])).toBeGreaterThan(Number(/^id: (\d+)/.exec(ready)![1]));
    // The server learns that the client cancelled when its socket closes: soon, not at once.
    await expect.poll(() => changeFeedStats().subscribers).toBe(0);
    // An abort (the browser left) closes a stream nobody cancelled.
    const second = await GET(new Request(`http://localhost/api/events`, { signal: aborted.signal }));
    const reading = readFrames(second, () => false);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(changeFeedStats().subscribers).toBe(1);
    aborted.abort();
    expect((await reading).map((frame) => frame.split("\n")[1] ?? frame)).toEqual(["retry: 1000", "event: ready"]);
    await expect.poll(() => changeFeedStats().subscribers).toBe(0);
  });

  it("resumes from Last-Event-ID over the `after` in the URL, and sends a reset for a pruned seq", async () => {
    const { handoff } = await createHandoff({ title: "sse resume", content: "start" });
    const resumeFrom = await latestChangeSeq();
    await addEntry({ id: handoff.id, type: "progress", content: "after the drop" });
    const response = await GET(new Request(`http://localhost/api/events?after=0&handoff=${handoff.id}`, { headers: { "last-event-id": String(resumeFrom) } }));
    const frames = await readFrames(response, (all) => all.some((frame) => frame.includes("event: ready")));
    const ids = frames.slice(1, -1).map((frame) => Number(/^id: (\d+)/.exec(frame)![1]));
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.every((id) => id > resumeFrom)).toBe(true);

    await pruneChanges({ keepRows: 0 });
    const reset = await readFrames(await GET(new Request(`http://localhost/api/events?after=1`)), (all) => all.some((frame) => frame.includes("event: ready")));
    expect(reset[1]).toMatch(/^id: \d+\nevent: reset\ndata: \{"seq":\d+,"reason":"changes up to seq \d+ are no longer kept"\}$/);
  });

  it("sends a heartbeat comment whose id moves the resume point past changes the filter left out", async () => {
    const watched = await createHandoff({ title: "watched", content: "start" });
    const other = await createHandoff({ title: "other", content: "start" });
    const aborted = new AbortController();
    const stream = await changeStream({ filter: { handoffId: watched.handoff.id } }, aborted.signal, 50);
    await addEntry({ id: other.handoff.id, type: "progress", content: "not for this stream" });
    const otherSeq = await latestChangeSeq();
    const frames = await readFrames(new Response(stream), (all) =>
      all.some((frame) => frame.startsWith(": keep-alive\nid: ") && Number(frame.split("id: ")[1]) >= otherSeq),
    );
    aborted.abort();
    expect(frames.filter((frame) => frame.includes("data: "))).toHaveLength(1); // only the ready event
    expect(frames.at(-1)).toBe(`: keep-alive\nid: ${otherSeq}`);
  });

  it.each([
    ["after=-1", "after must be a whole number from 0"],
    ["after=abc", "after must be a whole number from 0"],
    ["after=1e3", "after must be a whole number from 0"],
    ["after=1&after=2", "give after at most once"],
    ["handoff=hof_short", "handoff must be a handoff ID"],
    ["agent=0", "agent must be a whole number from 1"],
    ["agent=x", "agent must be a whole number from 1"],
    ["subject=entry,comment", "subject[1] must be a comma-separated list of handoff, entry, agent, shift_handoff"],
  ])("answers 400 with a message for ?%s", async (query, message) => {
    const response = await GET(new Request(`http://localhost/api/events?${query}`));
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("INVALID");
    expect(body.error.message).toContain(message);
    expect(changeFeedStats().subscribers).toBe(0);
  });

  it("says once what is wrong with a seq past 2^53 (it failed as a fraction and as too large, one message twice)", async () => {
    const response = await GET(new Request("http://localhost/api/events?after=9007199254740993"));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe("after must be a whole number from 0 to 9007199254740991");
  });

  it("answers 400 for a Last-Event-ID that is not a seq", async () => {
    const response = await GET(new Request("http://localhost/api/events", { headers: { "last-event-id": "yesterday" } }));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain("Last-Event-ID must be a whole number");
  });
});
