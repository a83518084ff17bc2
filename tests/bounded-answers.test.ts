import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { read, storedDate, write } from "../lib/database";
import { addEntry, createHandoff, getHandoff, END_OF_THREAD, THREAD_ANSWER_BUDGET_BYTES } from "../lib/handoffs";
import type { OmittedRange } from "../lib/handoffs";
import { createMcpServer } from "../lib/mcp/create-server";
import { serveApi, type ApiServer, type RouteFunction } from "./support/api-server";

/** The acceptance bound for one answer: REST body, MCP structuredContent, MCP text block. */
const ANSWER_LIMIT_BYTES = 256 * 1024;
const ENTRY_COUNT = 10_000;
const bytes = (value: unknown) => Buffer.byteLength(typeof value === "string" ? value : JSON.stringify(value), "utf8");

type McpEntry = { seq: number; content: string };
type McpRange = { first_number: number; last_number: number; first_seq: number; last_seq: number; count: number } | null;
type McpThread = {
  entries: McpEntry[];
  new_entries: McpEntry[];
  new_count: number;
  entry_count: number;
  truncated: boolean;
  omitted: { earlier: McpRange; later: McpRange };
  hint: string | null;
  handoff: { chat_last_seen: number; code_last_seen: number };
};
type RestThread = {
  entries: { seq: number }[];
  newEntries: { seq: number }[];
  newCount: number;
  entryCount: number;
  truncated: boolean;
  omitted: { earlier: OmittedRange | null; later: OmittedRange | null };
  hint: string | null;
};

/** Content of varied size, with the characters JSON must escape and multi-byte text. */
function contentOf(index: number): string {
  const body = index % 50 === 0 ? "long \"quoted\" line\n".repeat(150) : `step ${index}: é✓ "done"\n` + "x".repeat(index % 400);
  return `#${index} ${body}`;
}

/** Rows per INSERT when filling the thread. */
const INSERT_BATCH = 500;

let id: string;
let seqs: number[];
let mcp: Client;
let api: ApiServer;
let getRoute: RouteFunction;

async function cursors() {
  return (await read((tx) => tx.get<{ chat: number; code: number }>("SELECT chat_last_seen AS chat, code_last_seen AS code FROM handoffs WHERE id = ?", [id])))!;
}

async function setCursors(chat: number, code: number) {
  await write((tx) => tx.run("UPDATE handoffs SET chat_last_seen = ?, code_last_seen = ? WHERE id = ?", [chat, code, id]));
}

async function rest(query: string): Promise<{ status: number; size: number; body: RestThread & { error?: { message: string } } }> {
  const response = await getRoute(new Request(`http://127.0.0.1/api/handoffs/${id}?${query}`), { params: Promise.resolve({ id }) });
  const text = await response.text();
  return { status: response.status, size: bytes(text), body: JSON.parse(text) };
}

async function tool(args: Record<string, unknown>) {
  const result = await mcp.callTool({ name: "get_handoff", arguments: { id, ...args } });
  const text = (result.content as { type: string; text: string }[])[0].text;
  return { result, text, thread: result.structuredContent as McpThread };
}

beforeAll(async () => {
  // One createHandoff, then the other 9,999 entries in one bulk insert: addEntry per entry would
  // take minutes, and the answer rule only reads rows.
  const created = await createHandoff({ title: "Ten thousand entries", content: contentOf(0), asClient: "chat" });
  id = created.handoff.id;
  const at = storedDate();
  await write(async (tx) => {
    for (let first = 1; first < ENTRY_COUNT; first += INSERT_BATCH) {
      const indexes = Array.from({ length: Math.min(INSERT_BATCH, ENTRY_COUNT - first) }, (_, offset) => first + offset);
      await tx.run(
        `INSERT INTO handoff_entries (handoff_id, number, from_client, type, content, created_at) VALUES ${indexes.map(() => "(?, ?, ?, 'progress', ?, ?)").join(", ")}`,
        indexes.flatMap((index) => [id, index + 1, index % 2 ? "code" : "chat", contentOf(index), at]),
      );
    }
    await tx.run("UPDATE handoffs SET last_number = ? WHERE id = ?", [ENTRY_COUNT, id]);
  });
  seqs = await read(async (tx) => (await tx.rows<[number]>("SELECT seq FROM handoff_entries WHERE handoff_id = ? ORDER BY seq", [id])).map(([seq]) => seq));
  // Chat has read the first 6,000; code has read everything.
  await setCursors(seqs[5999], seqs[ENTRY_COUNT - 1]);

  const server = createMcpServer({ log: () => {} });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  mcp = new Client({ name: "bounded-answers-test", version: "1.0.0" });
  await mcp.connect(clientSide);

  api = await serveApi();
  getRoute = api.route("GET", "/api/handoffs/:id");
}, 120_000);

afterAll(async () => {
  await mcp?.close();
  await api?.close();
});

describe("get_handoff on a 10,000-entry thread", () => {
  it("is a thread of 10,000 entries and several megabytes", async () => {
    expect(seqs).toHaveLength(ENTRY_COUNT);
    const total = seqs.reduce((sum, _, index) => sum + bytes(contentOf(index)), 0);
    expect(total).toBeGreaterThan(2_000_000);
  });

  it("answers by default within 256 KB over MCP (the whole tool result) and REST, new entries first", async () => {
    const { result, text, thread } = await tool({ as_client: "chat" });
    expect(result.isError).toBeFalsy();
    const structuredSize = bytes(result.structuredContent);
    expect(structuredSize).toBeLessThanOrEqual(ANSWER_LIMIT_BYTES);
    expect(bytes(text)).toBeLessThanOrEqual(ANSWER_LIMIT_BYTES);
    // The whole message carries the answer twice (structured and as text): it too stays within 256 KB.
    expect(bytes(result)).toBeLessThanOrEqual(ANSWER_LIMIT_BYTES);
    console.log(
      `MCP get_handoff default answer: structuredContent ${structuredSize} B, text block ${bytes(text)} B, ` +
        `whole tool result ${bytes(result)} B, ${thread.entries.length} entries`,
    );

    // The 4,000 entries chat has not seen come first, from its cursor on, oldest first.
    expect(thread.new_count).toBe(4000);
    expect(thread.entry_count).toBe(ENTRY_COUNT);
    expect(thread.entries.length).toBeGreaterThan(100);
    expect(thread.entries.map((entry) => entry.seq)).toEqual(seqs.slice(6000, 6000 + thread.entries.length));
    expect(thread.new_entries).toEqual(thread.entries);
    expect(thread.truncated).toBe(true);
    expect(thread.omitted.earlier).toEqual({ first_number: 1, last_number: 6000, first_seq: seqs[0], last_seq: seqs[5999], count: 6000 });
    const lastIncluded = thread.entries.at(-1)!.seq;
    expect(thread.omitted.later).toEqual({
      first_number: 6001 + thread.entries.length,
      last_number: ENTRY_COUNT,
      first_seq: seqs[6000 + thread.entries.length],
      last_seq: seqs.at(-1),
      count: 4000 - thread.entries.length,
    });
    expect(thread.hint).toContain(`after_seq=${lastIncluded}`);
    expect(thread.hint).toContain(`before_seq=${thread.entries[0].seq}`);
    expect(thread.hint).toMatch(/before calling mark_handoff_read/);

    const { status, size, body } = await rest("as=chat");
    expect(status).toBe(200);
    expect(size).toBeLessThanOrEqual(ANSWER_LIMIT_BYTES);
    console.log(`REST GET /api/handoffs/<id> default answer: ${size} B`);
    expect(body.entries.map((entry) => entry.seq)).toEqual(thread.entries.map((entry) => entry.seq));
    expect(body.truncated).toBe(true);
  });

  it("with nothing new, carries the latest entries and says how to read back", async () => {
    const { thread, text } = await tool({ as_client: "code" });
    expect(bytes(text)).toBeLessThanOrEqual(ANSWER_LIMIT_BYTES);
    expect(thread.new_count).toBe(0);
    expect(thread.new_entries).toEqual([]);
    const count = thread.entries.length;
    expect(thread.entries.map((entry) => entry.seq)).toEqual(seqs.slice(ENTRY_COUNT - count));
    expect(thread.omitted).toEqual({
      earlier: { first_number: 1, last_number: ENTRY_COUNT - count, first_seq: seqs[0], last_seq: seqs[ENTRY_COUNT - count - 1], count: ENTRY_COUNT - count },
      later: null,
    });
    expect(thread.hint).toContain(`before_seq=${thread.entries[0].seq}`);
    // Old entries cost half what new ones do (they appear once): about twice as many bytes of them fit.
    const { thread: asChat } = await tool({ as_client: "chat" });
    expect(bytes(thread.entries)).toBeGreaterThan(bytes(asChat.entries) * 1.5);
  });

  it("puts new entries before old ones when both cannot fit, and includes every new one that fits", async () => {
    const before = await cursors();
    try {
      // Ten new for chat: all ten come, then older ones up to the budget.
      await setCursors(seqs[ENTRY_COUNT - 11], before.code);
      const thread = await getHandoff({ id, asClient: "chat" });
      expect(thread.newCount).toBe(10);
      expect(thread.newEntries.map((entry) => entry.seq)).toEqual(seqs.slice(-10));
      const first = seqs.indexOf(thread.entries[0].seq);
      expect(first).toBeLessThan(ENTRY_COUNT - 10);
      expect(thread.entries.map((item) => item.seq)).toEqual(seqs.slice(first));
      expect(thread.omitted).toEqual({ earlier: { firstNumber: 1, lastNumber: first, firstSeq: seqs[0], lastSeq: seqs[first - 1], count: first }, later: null });

      // A new entry written now is in the next answer at once, though the thread is far over budget.
      const { entry } = await addEntry({ id, type: "question", content: "Anything new?", asClient: "code" });
      const again = await getHandoff({ id, asClient: "chat" });
      expect(again.newEntries.map((item) => item.seq)).toEqual([...seqs.slice(-10), entry.seq]);
      expect(again.newCount).toBe(11);
    } finally {
      await write((tx) => tx.run("DELETE FROM handoff_entries WHERE handoff_id = ? AND seq > ?", [id, seqs.at(-1)]));
      await setCursors(before.chat, before.code);
    }
  });

  it("pages forward over MCP with after_seq and reaches every entry exactly once", async () => {
    const seen: number[] = [];
    let after = 0;
    for (let page = 0; page < 200; page++) {
      const { thread, text } = await tool({ as_client: "chat", after_seq: after });
      expect(bytes(text)).toBeLessThanOrEqual(ANSWER_LIMIT_BYTES);
      seen.push(...thread.entries.map((entry) => entry.seq));
      if (!thread.truncated) break;
      expect(thread.omitted.earlier).toBeNull();
      expect(thread.hint).toContain(`after_seq=${thread.entries.at(-1)!.seq}`);
      after = thread.entries.at(-1)!.seq;
    }
    expect(seen).toEqual(seqs);
  });

  it("pages back over REST with before_seq and limit and reaches every entry exactly once", async () => {
    const seen: number[] = [];
    let before = END_OF_THREAD;
    let pages = 0;
    for (; pages < 200; pages++) {
      const { status, size, body } = await rest(`as=code&before_seq=${before}&limit=1000`);
      expect(status).toBe(200);
      expect(size).toBeLessThanOrEqual(ANSWER_LIMIT_BYTES);
      expect(body.entries.length).toBeLessThanOrEqual(1000);
      seen.unshift(...body.entries.map((entry) => entry.seq));
      if (!body.truncated) break;
      expect(body.omitted.later).toBeNull();
      before = body.entries[0].seq;
    }
    expect(seen).toEqual(seqs);
    expect(pages).toBeGreaterThan(10);
  });

  it("limit alone caps the count; after_seq with before_seq reads the range between", async () => {
    const { thread } = await tool({ as_client: "chat", limit: 5 });
    expect(thread.entries.map((entry) => entry.seq)).toEqual(seqs.slice(6000, 6005));
    expect(thread.hint).toContain("(limit=5)");
    const { body } = await rest(`as=chat&after_seq=${seqs[99]}&before_seq=${seqs[110]}`);
    expect(body.entries.map((entry) => entry.seq)).toEqual(seqs.slice(100, 110));
    expect(body.truncated).toBe(false);
    expect(body.hint).toBeNull();
    const { body: page } = await rest(`as=chat&after_seq=${seqs[99]}&before_seq=${seqs[110]}&limit=4`);
    expect(page.omitted.later).toEqual({ firstNumber: 105, lastNumber: 110, firstSeq: seqs[104], lastSeq: seqs[109], count: 6 });
    expect(page.hint).toContain(`after_seq=${seqs[103]} and before_seq=${seqs[110]}`);
  });

  it("always carries at least one entry, so paging moves on even past a tiny budget", async () => {
    const thread = await getHandoff({ id, asClient: "code", afterSeq: 0, maxBytes: 10 });
    expect(thread.entries.map((entry) => entry.seq)).toEqual([seqs[0]]);
    expect(thread.truncated).toBe(true);
  });

  it("never moves a cursor", async () => {
    expect(await cursors()).toEqual({ chat: seqs[5999], code: seqs.at(-1) });
  });
});

describe("a small thread", () => {
  it("comes whole, as the seed says, with nothing omitted", async () => {
    const { handoff } = await createHandoff({ title: "small", content: "hello" });
    await addEntry({ id: handoff.id, type: "question", content: "7d or 30d?", asClient: "code" });
    const thread = await getHandoff({ id: handoff.id, asClient: "chat" });
    expect(thread.entries.map((entry) => entry.content)).toEqual(["hello", "7d or 30d?"]);
    expect(thread.newEntries.map((entry) => entry.content)).toEqual(["7d or 30d?"]);
    expect(thread).toMatchObject({ newCount: 1, entryCount: 2, truncated: false, omitted: { earlier: null, later: null }, hint: null });
    expect(THREAD_ANSWER_BUDGET_BYTES).toBeLessThan(ANSWER_LIMIT_BYTES);
  });
});

describe("bad paging arguments", () => {
  it.each([
    ["after_seq=-1", /after_seq must be a whole number from 0 to/],
    ["after_seq=abc", /after_seq must be a whole number from 0 to/],
    ["after_seq=1.5", /after_seq must be a whole number from 0 to/],
    ["after_seq=99999999999999999999", /after_seq must be a whole number from 0 to/],
    ["before_seq=x", /before_seq must be a whole number from 0 to/],
    ["limit=0", /limit must be a whole number from 1 to 1000/],
    ["limit=1001", /limit must be a whole number from 1 to 1000/],
    ["limit=ten", /limit must be a whole number from 1 to 1000/],
    ["after_seq=10&before_seq=10", /before_seq must be above after_seq/],
  ])("REST ?%s answers 400 with a message", async (query, message) => {
    const { status, body } = await rest(query);
    expect(status).toBe(400);
    expect(body.error!.message).toMatch(message);
  });

  it.each([
    [{ after_seq: -1 }, /after_seq must be a whole number from 0 to/],
    [{ after_seq: 2.5 }, /after_seq must be a whole number from 0 to/],
    [{ after_seq: "12" }, /after_seq must be a whole number/],
    [{ before_seq: -3 }, /before_seq must be a whole number from 0 to/],
    [{ limit: 0 }, /limit must be a whole number from 1 to 1000/],
    [{ limit: 5000 }, /limit must be a whole number from 1 to 1000/],
    [{ after_seq: 5, before_seq: 2 }, /before_seq must be above after_seq/],
  ])("MCP %j is a tool error with a message", async (args, message) => {
    const { result, text } = await tool(args);
    expect(result.isError).toBe(true);
    expect(text).toMatch(message);
  });

  it("an unknown handoff is a 404 over REST", async () => {
    const response = await getRoute(new Request("http://127.0.0.1/api/handoffs/hof_doesnotexist123456789"), {
      params: Promise.resolve({ id: "hof_doesnotexist123456789" }),
    });
    expect(response.status).toBe(404);
  });
});
