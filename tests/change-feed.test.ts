import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { registerAgent, updateAgent } from "../lib/agents";
import { changeFeedStats, changeStream, latestChangeSeq, pruneChanges, subscribe, type FeedEvent, type Subscription } from "../lib/changes";
import { addEntry, createHandoff } from "../lib/handoffs";
import { serveApi, type ApiServer } from "./support/api-server";

const run = promisify(execFile);
const worker = path.join(import.meta.dirname, "support", "append-worker.ts");

const open: Subscription[] = [];
afterEach(() => {
  for (const subscription of open.splice(0)) subscription.close();
});

/** Subscribes and collects what arrives; `until` resolves once `count` events matched `predicate`. */
function collect(options: Parameters<typeof subscribe>[0]) {
  const events: FeedEvent[] = [];
  let wake = () => {};
  const subscription = subscribe(options, (event) => {
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
  it("delivers a write made by another OS process to an in-process subscriber, within a few checks", async () => {
    const { handoff } = await createHandoff({ title: "fed", content: "start" });
    const feed = collect({ filter: { handoffId: handoff.id } });
    const started = Date.now();
    const { stdout } = await run(process.execPath, ["--import", "tsx", worker, handoff.id, handoff.id, "1", "code"], { env: process.env });
    const [entrySeq] = JSON.parse(stdout.trim().slice(3)) as number[];
    const events = await feed.until((all) => changesOf(all).some((change) => change.subject === "entry"));
    const entry = changesOf(events).find((change) => change.subject === "entry")!;
    expect(entry).toMatchObject({ action: "created", handoffId: handoff.id, entrySeq, agentId: null });
    expect(entry.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // The entry's append also updated the handoff (its cursor and updatedAt): both arrive, in seq order.
    const seqs = changesOf(events).map((change) => change.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("notices this process's own writes too (data_version does not change for them)", async () => {
    const feed = collect({ filter: { subjects: ["handoff"] } });
    const { handoff } = await createHandoff({ title: "local", content: "start" });
    const events = await feed.until((all) => changesOf(all).some((change) => change.handoffId === handoff.id));
    expect(changesOf(events).find((change) => change.handoffId === handoff.id)).toMatchObject({ subject: "handoff", action: "created" });
  });

  it("filters by handoff, by agent and by subject", async () => {
    const a = await createHandoff({ title: "a", content: "start" });
    const b = await createHandoff({ title: "b", content: "start" });
    const agent = await registerAgent({ personaSlug: "feed-filter" });
    const other = await registerAgent({ personaSlug: "feed-other" });
    const after = latestChangeSeq();
    const onlyA = collect({ after, filter: { handoffId: a.handoff.id } });
    const onlyAgent = collect({ after, filter: { agentId: agent.id } });
    const onlyEntries = collect({ after, filter: { subjects: ["entry"] } });
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
    const before = latestChangeSeq();
    for (const content of ["one", "two", "three"]) await addEntry({ id: handoff.id, type: "progress", content });
    const missed = latestChangeSeq();
    const feed = collect({ after: before, filter: { handoffId: handoff.id } });
    // The replay is synchronous: it is there before subscribe returns.
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
    const old = latestChangeSeq();
    for (const content of ["one", "two"]) await addEntry({ id: handoff.id, type: "progress", content });
    const latest = latestChangeSeq();
    expect(pruneChanges({ keepRows: 1 })).toBeGreaterThan(0);
    const behind = collect({ after: old });
    expect(behind.events).toEqual([{ kind: "reset", seq: latest, reason: `changes up to seq ${latest - 1} are no longer kept` }]);
    const ahead = collect({ after: latest + 50 });
    expect(ahead.events).toEqual([{ kind: "reset", seq: latest, reason: `seq ${latest + 50} is ahead of this database's latest change (${latest})` }]);
    // Resuming from what is still kept is not a reset.
    expect(collect({ after: latest - 1 }).events.map((event) => event.kind)).toEqual(["change"]);
    // Age: everything older than a day goes (here "now" is two days ahead), and the table may end empty.
    pruneChanges({ now: Date.now() + 2 * 24 * 60 * 60 * 1000 });
    expect(collect({ after: latest }).events).toEqual([]);
    expect(collect({ after: latest - 1 }).events.map((event) => event.kind)).toEqual(["reset"]);
  });

  it("stops checking the database when the last subscriber leaves", async () => {
    const feed = collect({});
    expect(changeFeedStats().subscribers).toBe(1);
    feed.subscription.close();
    expect(changeFeedStats().subscribers).toBe(0);
    const checks = changeFeedStats().checks;
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(changeFeedStats().checks).toBe(checks);
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
    const after = latestChangeSeq();
    await addEntry({ id: handoff.id, type: "question", content: "missed while away" });
    const aborted = new AbortController();
    const response = await GET(new Request(`http://localhost/api/events?after=${after}&handoff=${handoff.id}&subject=entry`, { signal: aborted.signal }));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-cache, no-transform");
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
    const resumeFrom = latestChangeSeq();
    await addEntry({ id: handoff.id, type: "progress", content: "after the drop" });
    const response = await GET(new Request(`http://localhost/api/events?after=0&handoff=${handoff.id}`, { headers: { "last-event-id": String(resumeFrom) } }));
    const frames = await readFrames(response, (all) => all.some((frame) => frame.includes("event: ready")));
    const ids = frames.slice(1, -1).map((frame) => Number(/^id: (\d+)/.exec(frame)![1]));
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.every((id) => id > resumeFrom)).toBe(true);

    pruneChanges({ keepRows: 0 });
    const reset = await readFrames(await GET(new Request(`http://localhost/api/events?after=1`)), (all) => all.some((frame) => frame.includes("event: ready")));
    expect(reset[1]).toMatch(/^id: \d+\nevent: reset\ndata: \{"seq":\d+,"reason":"changes up to seq \d+ are no longer kept"\}$/);
  });

  it("sends a heartbeat comment whose id moves the resume point past changes the filter left out", async () => {
    const watched = await createHandoff({ title: "watched", content: "start" });
    const other = await createHandoff({ title: "other", content: "start" });
    const aborted = new AbortController();
    const stream = changeStream({ filter: { handoffId: watched.handoff.id } }, aborted.signal, 50);
    await addEntry({ id: other.handoff.id, type: "progress", content: "not for this stream" });
    const otherSeq = latestChangeSeq();
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
    ["subject=entry,comment", "subject must be a comma-separated list of handoff, entry, agent, shift_handoff"],
  ])("answers 400 with a message for ?%s", async (query, message) => {
    const response = await GET(new Request(`http://localhost/api/events?${query}`));
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("INVALID");
    expect(body.error.message).toContain(message);
    expect(changeFeedStats().subscribers).toBe(0);
  });

  it("answers 400 for a Last-Event-ID that is not a seq", async () => {
    const response = await GET(new Request("http://localhost/api/events", { headers: { "last-event-id": "yesterday" } }));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain("Last-Event-ID must be a whole number");
  });
});
