import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countRows, rowsOf } from "./support/rows";
import { connectHttpClient, connectStdioClient } from "./support/mcp-clients";
import { serveApi } from "./support/api-server";

type Json = Record<string, unknown>;
type Entry = { number: number; seq: number; answers: number | null; from_client: string; type: string; content: string; created_at: string };
type Handoff = {
  id: string;
  title: string;
  project: string | null;
  chat_last_seen: number;
  code_last_seen: number;
  status: string;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
};
type Thread = { handoff: Handoff; entries: Entry[]; new_entries: Entry[]; new_count: number };

/**
 * Calls a tool, checks it succeeded and that its text block says what structuredContent does: the
 * same JSON, or for get_handoff the thread as a quoted transcript (each entry under its fenced
 * heading, the new ones first).
 */
async function call<T>(client: Client, name: string, args: Json): Promise<T> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text: string }[];
  expect(result.isError, content[0]?.text).toBeFalsy();
  expect(content).toHaveLength(1);
  if (name !== "get_handoff") {
    expect(JSON.parse(content[0].text)).toEqual(result.structuredContent);
    return result.structuredContent as T;
  }
  const thread = result.structuredContent as Thread;
  const text = content[0].text;
  expect(text.startsWith(`# Handoff ${thread.handoff.id}\n`)).toBe(true);
  expect(text).toContain(`${thread.new_count} new of ${thread.entries.length} entries`);
  expect(text).toContain(`\ntitle: ${JSON.stringify(thread.handoff.title)}\n`);
  const fence = /\[(q-[0-9a-f]{12})\] -----/.exec(text)![1];
  const freshBlock = text.indexOf(`----- BEGIN QUOTED ENTRIES of ${thread.handoff.id}, new to `);
  const fresh = new Set(thread.new_entries.map((entry) => entry.seq));
  expect(freshBlock > -1).toBe(fresh.size > 0);
  for (const entry of thread.entries) {
    const answers = entry.answers === null ? "" : `, answers #${entry.answers}`;
    const at = text.indexOf(`\n[${fence}] #${entry.number} ${entry.type} from ${entry.from_client}${answers}, ${entry.created_at}, seq ${entry.seq}\n${entry.content}\n`);
    expect(at).toBeGreaterThan(-1);
    // The new entries come first, in their own block.
    if (fresh.has(entry.seq)) expect(at).toBeGreaterThan(freshBlock);
    else if (freshBlock > -1) expect(at).toBeGreaterThan(text.indexOf(`----- BEGIN QUOTED ENTRIES of ${thread.handoff.id}, earlier `));
  }
  return thread as T;
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

type Sides = { chat: Client; code: Client; close: () => Promise<void> };

const transports: Record<string, () => Promise<Sides>> = {
  // One stdio server per Claude client, as in real use; the code side passes as_client itself.
  stdio: async () => {
    const [chat, code] = await Promise.all([connectStdioClient(), connectStdioClient()]);
    return { chat: chat.client, code: code.client, close: async () => void (await Promise.all([chat.client.close(), code.client.close()])) };
  },
  http: async () => {
    const server = await serveApi();
    const [chat, code] = await Promise.all([connectHttpClient(`${server.origin}/api/mcp`), connectHttpClient(`${server.origin}/api/mcp`)]);
    return {
      chat,
      code,
      close: async () => {
        await Promise.all([chat.close(), code.close()]);
        await server.close();
      },
    };
  },
};

describe.each(Object.keys(transports))("the seed's Typical Workflow over %s", (transport) => {
  let sides: Sides;
  beforeAll(async () => {
    sides = await transports[transport]();
  });
  afterAll(async () => {
    await sides?.close();
  });

  it("lists the five thread tools, each with an output schema and a description of as_client", async () => {
    const { tools } = await sides.chat.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of ["create_handoff", "get_handoff", "add_to_handoff", "mark_handoff_read", "close_handoff"]) {
      const tool = byName.get(name);
      expect(tool, name).toBeDefined();
      expect(tool!.outputSchema?.type).toBe("object");
      expect(tool!.description!.length).toBeGreaterThan(80);
      if (name !== "close_handoff") {
        const asClient = (tool!.inputSchema.properties as Record<string, { enum?: string[]; description?: string }>).as_client;
        expect(asClient.enum).toEqual(["chat", "code"]);
        expect(asClient.description).toMatch(/Claude Code/);
      }
    }
    const addType = (byName.get("add_to_handoff")!.inputSchema.properties as Record<string, { enum?: string[] }>).type;
    expect(addType.enum).toEqual(["context", "task", "progress", "question", "decision", "done"]);
  });

  it("runs steps 1–6, each side seeing the other's entries as new and its own as read", async () => {
    const { chat, code } = sides;

    // 1. Chat creates the handoff.
    const created = await call<{ handoff: Handoff; entries: Entry[] }>(chat, "create_handoff", {
      title: "Implement auth system",
      content: "We decided on JWT with refresh tokens. Requirements: ...",
    });
    const id = created.handoff.id;
    expect(id).toMatch(/^hof_[A-Za-z0-9_-]{21}$/);
    expect(created.entries).toHaveLength(1);
    const [context] = created.entries;
    expect(context).toEqual({
      number: 1,
      seq: expect.any(Number),
      answers: null,
      from_client: "chat",
      type: "context",
      content: "We decided on JWT with refresh tokens. Requirements: ...",
      created_at: expect.stringMatching(ISO),
    });
    expect(created.handoff).toEqual({
      id,
      title: "Implement auth system",
      project: null,
      chat_last_seen: context.seq,
      code_last_seen: 0,
      status: "active",
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
      closed_at: null,
    });

    // 2. Code picks it up: the context is new to it; marking read moves only code's cursor.
    const codeFirstRead = await call<Thread>(code, "get_handoff", { id, as_client: "code" });
    expect(codeFirstRead.entries).toEqual([context]);
    expect(codeFirstRead.new_entries).toEqual([context]);
    expect(codeFirstRead.new_count).toBe(1);
    expect(codeFirstRead.handoff.code_last_seen).toBe(0);
    const afterMark = await call<Handoff>(code, "mark_handoff_read", { id, as_client: "code" });
    expect(afterMark).toMatchObject({ id, code_last_seen: context.seq, chat_last_seen: context.seq, status: "active" });
    expect((await call<Thread>(code, "get_handoff", { id, as_client: "code" })).new_count).toBe(0);

    // 3. Code asks a question; its own cursor moves to it, chat's does not.
    const asked = await call<{ handoff: Handoff; entry: Entry }>(code, "add_to_handoff", {
      id,
      type: "question",
      content: "Should refresh tokens expire after 7d or 30d?",
      as_client: "code",
    });
    const question = asked.entry;
    expect(question).toMatchObject({ from_client: "code", type: "question" });
    expect(question).not.toHaveProperty("handoff_id"); // said once, in asked.handoff
    expect(question.seq).toBeGreaterThan(context.seq);
    expect(asked.handoff).toMatchObject({ code_last_seen: question.seq, chat_last_seen: context.seq });

    // 4. Chat (as_client omitted = chat) sees the question as new, then decides.
    const chatRead = await call<Thread>(chat, "get_handoff", { id });
    expect(chatRead.entries).toEqual([context, question]);
    expect(chatRead.new_entries).toEqual([question]);
    expect(chatRead.new_count).toBe(1);
    const decided = await call<{ handoff: Handoff; entry: Entry }>(chat, "add_to_handoff", {
      id,
      type: "decision",
      content: "30 days. Also add a 'remember me' option.",
    });
    const decision = decided.entry;
    expect(decision).toMatchObject({ from_client: "chat", type: "decision" });
    expect(decision.seq).toBeGreaterThan(question.seq);
    expect(decided.handoff).toMatchObject({ chat_last_seen: decision.seq, code_last_seen: question.seq });
    expect((await call<Thread>(chat, "get_handoff", { id })).new_count).toBe(0);

    // 5. Code sees only the decision as new, then reports done.
    const codeRead = await call<Thread>(code, "get_handoff", { id, as_client: "code" });
    expect(codeRead.entries).toEqual([context, question, decision]);
    expect(codeRead.new_entries).toEqual([decision]);
    expect(codeRead.new_count).toBe(1);
    const finished = await call<{ handoff: Handoff; entry: Entry }>(code, "add_to_handoff", {
      id,
      type: "done",
      content: "Auth system implemented. PR #42 ready for review.",
      as_client: "code",
    });
    const done = finished.entry;
    expect(finished.handoff).toMatchObject({ code_last_seen: done.seq, chat_last_seen: decision.seq });
    const chatSeesDone = await call<Thread>(chat, "get_handoff", { id });
    expect(chatSeesDone.new_entries).toEqual([done]);
    expect(chatSeesDone.entries.map((entry) => entry.seq)).toEqual([context.seq, question.seq, decision.seq, done.seq]);

    // 6. Close: entries wiped, the row stays, completed.
    const closed = await call<Handoff>(chat, "close_handoff", { id });
    expect(closed).toMatchObject({ id, status: "completed", title: "Implement auth system", code_last_seen: done.seq });
    expect(closed.closed_at).toMatch(ISO);
    const afterClose = await call<Thread>(code, "get_handoff", { id, as_client: "code" });
    expect(afterClose).toMatchObject({ entries: [], new_entries: [], new_count: 0 });
    expect(afterClose.handoff.status).toBe("completed");
    expect(await countRows("handoff_entries", "handoff_id = ?", [id])).toBe(0);
    expect(await rowsOf("SELECT status FROM handoffs WHERE id = ?", [id])).toEqual([{ status: "completed" }]);
  });
});
