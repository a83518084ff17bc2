import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, LATEST_PROTOCOL_VERSION, McpError, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHandoff } from "../lib/handoffs";
import { ensurePrebuilt } from "../lib/prebuilt/build";
import { MAX_SUBSCRIPTIONS, RESOURCE_NOT_FOUND } from "../lib/mcp/resources";
import { serveApi, type ApiServer } from "./support/api-server";
import { connectHttpClient, connectStdioClient, rawStdioServer } from "./support/mcp-clients";
import { rejectionOf } from "./support/rejection";

/**
 * What the MCP spec (2025-11-25) and JSON-RPC 2.0 ask of the server, checked with the SDK's real
 * client over stdio and over HTTP (Baton's own server on a socket), and with raw stdio lines:
 * "Resource not found" for unknown resources, one resources/updated per write, and an answer to
 * a line that is not a JSON-RPC message.
 */
const projectRoot = path.resolve(import.meta.dirname, "..");

let client: Client;
let writer: Client;
let api: ApiServer;
let http: Client;

beforeAll(async () => {
  client = (await connectStdioClient()).client;
  // The writer is a process of its own, as another agent's server would be.
  writer = (await connectStdioClient({ args: ["--as", "code"] })).client;
  api = await serveApi();
  // A session: its GET stream carries the notifications.
  http = await connectHttpClient(`${api.origin}/api/mcp`);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await writer?.close();
  await http?.close();
  await api?.close();
});

const refusal = (work: Promise<unknown>) => rejectionOf(work, McpError);

describe.each(["stdio", "HTTP"] as const)("unknown resources over %s", (transport) => {
  const reader = () => (transport === "stdio" ? client : http);

  it.each([
    ["a handoff ID of the wrong form", "baton://handoffs/hof_doesnotexist"],
    ["a well-formed handoff ID no handoff has", "baton://handoffs/hof_AAAAAAAAAAAAAAAAAAAAA"],
    ["an unknown agent", "baton://agents/999999/handoff"],
    ["an agent reference of the wrong form", "baton://agents/nobody/handoff"],
    ["a Baton URI no template matches", "baton://handoffs"],
    ["another scheme", "file:///etc/passwd"],
    ["text that is no URI", "not a uri"],
  ])("%s answers -32002 (Resource not found) with data.uri", async (_, uri) => {
    const error = await refusal(reader().readResource({ uri }));
    expect(error.code).toBe(RESOURCE_NOT_FOUND);
    expect(RESOURCE_NOT_FOUND).toBe(-32002);
    expect(error.data).toEqual({ uri });
    expect(error.message).not.toMatch(/\n\s+at /);
    // The client's McpError names the code once: the server's message does not carry it too.
    expect(error.message).toMatch(/^MCP error -32002: (?!MCP error)/);
  });

  it("a known handoff still reads, and subscribing to a URI that is no Baton resource answers -32002", async () => {
    const { handoff } = await createHandoff({ title: "Readable", content: "here" });
    const read = await reader().readResource({ uri: `baton://handoffs/${handoff.id}` });
    expect((read.contents[0] as { text: string }).text).toContain('title: "Readable"');
    const error = await refusal(reader().subscribeResource({ uri: "file:///etc/passwd" }));
    expect(error.code).toBe(RESOURCE_NOT_FOUND);
    expect(error.data).toEqual({ uri: "file:///etc/passwd" });
    expect(error.message).toMatch(/cannot subscribe/);
  });
});

describe.each(["stdio", "HTTP"] as const)("subscribing to what does not exist over %s", (transport) => {
  const reader = () => (transport === "stdio" ? client : http);

  it.each([
    ["a well-formed handoff ID no handoff has", "baton://handoffs/hof_AAAAAAAAAAAAAAAAAAAAA"],
    ["an unknown agent", "baton://agents/999999/handoff"],
  ])("%s answers -32002 (Resource not found), as reading it does", async (_, uri) => {
    const error = await refusal(reader().subscribeResource({ uri }));
    expect(error.code).toBe(RESOURCE_NOT_FOUND);
    expect(error.data).toEqual({ uri });
    expect(error.message).toMatch(/^MCP error -32002: (?!MCP error).*not found/);
  });

  it("an agent that has not handed off yet may be followed", async () => {
    const registered = await writer.callTool({ name: "register_agent", arguments: { persona: "developer" } });
    const uri = `baton://agents/${(registered.structuredContent as { id: number }).id}/handoff`;
    await reader().subscribeResource({ uri });
    await reader().unsubscribeResource({ uri });
  });
});

describe.each(["stdio", "HTTP"] as const)("resource subscriptions over %s", (transport) => {
  const subscriber = () => (transport === "stdio" ? client : http);

  /** Waits until `count()` reaches `expected`, then long enough for a second notification of the same write (the feed checks every 100 ms). */
  async function settle(count: () => number, expected: number): Promise<number> {
    await expect.poll(count, { timeout: 5_000, interval: 10 }).toBeGreaterThanOrEqual(expected);
    await new Promise((resolve) => setTimeout(resolve, 600));
    return count();
  }

  it("sends exactly one notifications/resources/updated per write to a subscribed handoff", async () => {
    const { handoff } = await createHandoff({ title: "Counted", content: "count my notifications" });
    const uri = `baton://handoffs/${handoff.id}`;
    const updates: string[] = [];
    subscriber().setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updates.push(notification.params.uri));
    await subscriber().subscribeResource({ uri });
    try {
      const count = () => updates.filter((updated) => updated === uri).length;
      // An entry (one row in handoff_entries, one update of its handoff: two changes).
      const added = await writer.callTool({ name: "add_to_handoff", arguments: { id: handoff.id, type: "progress", content: "first" } });
      expect(added.isError).not.toBe(true);
      expect(await settle(count, 1)).toBe(1);
      await writer.callTool({ name: "add_to_handoff", arguments: { id: handoff.id, type: "question", content: "second" } });
      expect(await settle(count, 2)).toBe(2);
      const closed = await writer.callTool({ name: "close_handoff", arguments: { id: handoff.id } });
      expect(closed.isError).not.toBe(true);
      expect(await settle(count, 3)).toBe(3);
      expect(updates.every((updated) => updated === uri)).toBe(true);
    } finally {
      await subscriber().unsubscribeResource({ uri });
    }
  }, 30_000);

  /**
   * Two subscribes to `uri`, both in flight before either is answered: over stdio two lines in a
   * row, as a client's concurrent calls are; over HTTP one batch in the client's session (two
   * POSTs would arrive one after the other).
   */
  async function subscribeTwiceAtOnce(uri: string): Promise<void> {
    if (transport === "stdio") {
      await Promise.all([client.subscribeResource({ uri }), client.subscribeResource({ uri })]);
      return;
    }
    const session = (http.transport as StreamableHTTPClientTransport).sessionId!;
    const subscribe = (id: number) => ({ jsonrpc: "2.0", id, method: "resources/subscribe", params: { uri } });
    const response = await api.fetch("/api/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": session, "mcp-protocol-version": LATEST_PROTOCOL_VERSION },
      body: JSON.stringify([subscribe(901), subscribe(902)]),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { error?: unknown }[]).map((answer) => answer.error)).toEqual([undefined, undefined]);
  }

  it("sends nothing after unsubscribe when the URI was subscribed twice at once", async () => {
    const { handoff } = await createHandoff({ title: "Twice", content: "subscribed by two requests in flight together" });
    const uri = `baton://handoffs/${handoff.id}`;
    const updates: string[] = [];
    subscriber().setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updates.push(notification.params.uri));
    await subscribeTwiceAtOnce(uri);
    const count = () => updates.filter((updated) => updated === uri).length;
    await writer.callTool({ name: "add_to_handoff", arguments: { id: handoff.id, type: "progress", content: "while subscribed" } });
    expect(await settle(count, 1)).toBe(1);
    await subscriber().unsubscribeResource({ uri });
    const added = await writer.callTool({ name: "add_to_handoff", arguments: { id: handoff.id, type: "progress", content: "after unsubscribe" } });
    expect(added.isError).not.toBe(true);
    // Long enough for the feed (100 ms checks) to have passed the write on.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(count()).toBe(1);
  }, 30_000);

  it(`holds at most ${MAX_SUBSCRIPTIONS} subscriptions per connection: one more is refused until one is unsubscribed`, async () => {
    const uris: string[] = [];
    for (let index = 0; index <= MAX_SUBSCRIPTIONS; index++) uris.push(`baton://handoffs/${(await createHandoff({ title: `storm ${index}`, content: "followed" })).handoff.id}`);
    const held = uris.slice(0, MAX_SUBSCRIPTIONS);
    const extra = uris[MAX_SUBSCRIPTIONS];
    try {
      await Promise.all(held.map((uri) => subscriber().subscribeResource({ uri })));
      const error = await refusal(subscriber().subscribeResource({ uri: extra }));
      expect(error.code).toBe(ErrorCode.InvalidParams);
      expect(error.message).toMatch(new RegExp(`subscribed to ${MAX_SUBSCRIPTIONS} resources.*unsubscribe from one first`));
      // Subscribing again to a URI already held takes no more room.
      await subscriber().subscribeResource({ uri: held[0] });
      await subscriber().unsubscribeResource({ uri: held[0] });
      await subscriber().subscribeResource({ uri: extra });
    } finally {
      await Promise.all(uris.map((uri) => subscriber().unsubscribeResource({ uri })));
    }
  }, 60_000);

  it("follows an agent named by its session's 8-hex prefix, as reading that URI does", async () => {
    const sessionId = crypto.randomUUID();
    const registered = await writer.callTool({ name: "register_agent", arguments: { persona: "developer", session_id: sessionId } });
    const agentId = (registered.structuredContent as { id: number }).id;
    const uri = `baton://agents/${sessionId.slice(0, 8)}/handoff`;
    const updates: string[] = [];
    subscriber().setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updates.push(notification.params.uri));
    await subscriber().subscribeResource({ uri });
    try {
      const handed = await writer.callTool({ name: "trigger_handoff", arguments: { agent: agentId, reason: "task_boundary", document: "# Handoff\n\nNext: the prefix." } });
      expect(handed.isError, JSON.stringify(handed.content)).not.toBe(true);
      expect(await settle(() => updates.filter((updated) => updated === uri).length, 1)).toBe(1);
    } finally {
      await subscriber().unsubscribeResource({ uri });
    }
  }, 30_000);

  it("sends exactly one per handoff of an agent's shift document", async () => {
    const registered = await writer.callTool({ name: "register_agent", arguments: { persona: "developer" } });
    const agentId = (registered.structuredContent as { id: number }).id;
    const uri = `baton://agents/${agentId}/handoff`;
    const updates: string[] = [];
    subscriber().setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updates.push(notification.params.uri));
    await subscriber().subscribeResource({ uri });
    try {
      const handed = await writer.callTool({
        name: "trigger_handoff",
        arguments: { agent: agentId, reason: "task_boundary", document: "# Handoff\n\nNext: the importer's tests." },
      });
      expect(handed.isError, JSON.stringify(handed.content)).not.toBe(true);
      expect(await settle(() => updates.filter((updated) => updated === uri).length, 1)).toBe(1);
    } finally {
      await subscriber().unsubscribeResource({ uri });
    }
  }, 30_000);
});

describe.each([
  ["the sources (bin/baton.mjs)", false],
  ["the prebuilt server (lib/mcp/launch.mjs)", true],
])("a line that is not a JSON-RPC message, through %s", (_, prebuilt) => {
  /** A raw stdio server past initialize, as a client leaves it. */
  async function initializedServer() {
    if (prebuilt) await ensurePrebuilt("mcp");
    const server = rawStdioServer(prebuilt ? [path.join(projectRoot, "lib", "mcp", "launch.mjs")] : [path.join(projectRoot, "bin", "baton.mjs"), "mcp"]);
    server.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }));
    await expect.poll(() => server.messages().some((message) => message.id === 1), { timeout: 60_000 }).toBe(true);
    server.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    return server;
  }

  it("gets -32700 (not JSON) or -32600 (not JSON-RPC) with id null, and the server goes on serving", { timeout: 120_000 }, async () => {
    const server = await initializedServer();
    server.write("this is not JSON {");
    server.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }));
    server.write(JSON.stringify({ hello: "a JSON object, but no JSON-RPC message" }));
    server.write(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }));
    await expect.poll(() => server.messages().some((message) => message.id === 3), { timeout: 30_000 }).toBe(true);
    expect(await server.end()).toBe(0);

    const messages = server.messages();
    const errors = messages.filter((message) => message.id === null);
    expect(errors).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error/) } },
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) } },
    ]);
    // Answered in order: the parse error before the ping that followed it.
    expect(messages.findIndex((message) => message.id === null)).toBeLessThan(messages.findIndex((message) => message.id === 2));
    expect(messages.find((message) => message.id === 2)).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
    expect(((messages.find((message) => message.id === 3)?.result as { tools: unknown[] }).tools).length).toBe(10);
  });

  it("gets -32600 with its request's id when a request that names one is refused (params as an array, jsonrpc 1.0), so the call fails at once", { timeout: 120_000 }, async () => {
    const server = await initializedServer();
    server.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping", params: [] }));
    server.write(JSON.stringify({ jsonrpc: "1.0", id: "two", method: "tools/list" }));
    // No id a client could match (past 2^53), and a malformed response, whose id is the client's own request's: id null.
    server.write('{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}');
    server.write(JSON.stringify({ jsonrpc: "2.0", id: 3, error: "not an error object" }));
    server.write(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "ping" }));
    await expect.poll(() => server.messages().some((message) => message.id === 4), { timeout: 30_000 }).toBe(true);
    expect(await server.end()).toBe(0);

    const refused = (id: string | number | null) => ({ jsonrpc: "2.0", id, error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) } });
    const messages = server.messages();
    expect(messages.filter((message) => message.id !== 1 && message.id !== 4)).toEqual([refused(2), refused("two"), refused(null), refused(null)]);
    expect(messages.find((message) => message.id === 4)).toEqual({ jsonrpc: "2.0", id: 4, result: {} });
  });

  it("answers every request a client sent before ending stdin (the last one without its newline too), then exits; a blank line gets no answer", { timeout: 120_000 }, async () => {
    const server = await initializedServer();
    server.write("");
    server.write("\r");
    server.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "create_handoff", arguments: { title: "asked, then gone", content: "c" } } }));
    server.write(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" }));
    // Ended at once: the create is still running when stdin ends (it used to be stored and never answered).
    // The last line ends with stdin, not a newline (printf '…' | baton mcp): it used to be dropped unread.
    expect(await server.end(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "create_handoff", arguments: { title: "last, unterminated", content: "c" } } }))).toBe(0);
    const messages = server.messages();
    expect((messages.find((message) => message.id === 2)?.result as { structuredContent: { handoff: { title: string } } }).structuredContent.handoff.title).toBe("asked, then gone");
    expect(messages.find((message) => message.id === 3)).toEqual({ jsonrpc: "2.0", id: 3, result: {} });
    expect((messages.find((message) => message.id === 4)?.result as { structuredContent: { handoff: { title: string } } }).structuredContent.handoff.title).toBe("last, unterminated");
    expect(messages.filter((message) => message.id === null)).toEqual([]);
  });

  it("answers both requests of a reused id before exiting when stdin ends (the first answer let it exit with the second stored, unanswered)", { timeout: 120_000 }, async () => {
    const server = await initializedServer();
    server.write(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "ping" }));
    server.write(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "create_handoff", arguments: { title: "same id as a ping", content: "c" } } }));
    expect(await server.end()).toBe(0);
    const answers = server.messages().filter((message) => message.id === 5);
    expect(answers).toHaveLength(2);
    expect(answers).toContainEqual({ jsonrpc: "2.0", id: 5, result: {} });
    expect(answers.some((message) => (message.result as { structuredContent?: { handoff: { title: string } } } | undefined)?.structuredContent?.handoff.title === "same id as a ping")).toBe(true);
  });

  it("exits 0 when stdin ends after the client cancelled a call (the SDK answers no cancelled call; the server waited for its answer and Node ended it with 13)", { timeout: 120_000 }, async () => {
    const server = await initializedServer();
    server.write(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "create_handoff", arguments: { title: "cancelled at once", content: "c" } } }));
    server.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7, reason: "the user pressed Esc" } }));
    server.write(JSON.stringify({ jsonrpc: "2.0", id: 8, method: "ping" }));
    expect(await server.end()).toBe(0);
    const messages = server.messages();
    expect(messages.filter((message) => message.id === 7)).toEqual([]);
    expect(messages.find((message) => message.id === 8)).toEqual({ jsonrpc: "2.0", id: 8, result: {} });
  });

  it("stops reading requests while the client does not read its answers, then answers every one once it does", { timeout: 120_000 }, async () => {
    const server = await initializedServer();
    server.pauseOutput();
    // 600 tools/list (60 KB answers, no database): 2.4 MB of requests, far past what a pipe holds, and 36 MB of answers.
    const calls = 600;
    const padding = { note: "p".repeat(4_000) };
    for (let index = 0; index < calls; index++) server.write(JSON.stringify({ jsonrpc: "2.0", id: 1_000 + index, method: "tools/list", params: { _meta: padding } }));
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    // The server read all of them within 3 s and held every answer for a client that read none.
    expect(server.unreadInput()).toBeGreaterThan(0);
    server.resumeOutput();
    expect(await server.end()).toBe(0);
    const answered = server.messages().filter((message) => typeof message.id === "number" && message.id >= 1_000);
    expect(new Set(answered.map((message) => message.id)).size).toBe(calls);
    expect(answered.every((message) => (message.result as { tools?: unknown[] }).tools?.length === 10)).toBe(true);
  });

  it("reads a batch's messages in turn and answers each with its id (MCP 2025-03-26: a server MUST take batches); an empty batch or a member that is no message gets -32600", { timeout: 120_000 }, async () => {
    const server = await initializedServer();
    server.write(
      JSON.stringify([
        { jsonrpc: "2.0", id: 2, method: "ping" },
        { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } },
        { jsonrpc: "2.0", id: "three", method: "tools/call", params: { name: "create_handoff", arguments: { title: "from a batch", content: "c" } } },
        7,
      ]),
    );
    server.write("[]");
    expect(await server.end()).toBe(0);
    const messages = server.messages();
    expect(messages.find((message) => message.id === 2)).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
    expect((messages.find((message) => message.id === "three")?.result as { structuredContent: { handoff: { title: string } } }).structuredContent.handoff.title).toBe("from a batch");
    expect(messages.filter((message) => message.id === null)).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) } },
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) } },
    ]);
  });

  it("answers a running request whose id a refused line reuses, before exiting when stdin ends", { timeout: 120_000 }, async () => {
    const server = await initializedServer();
    // One write: the create starts, then the line that is not UTF-8 (refused with id 6 at once) is read, then stdin ends.
    const create = JSON.stringify({ jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "create_handoff", arguments: { title: "running when its id is refused", content: "c" } } });
    const notUtf8 = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":6,"method":"ping","params":{"x":"'), Buffer.from([0xff]), Buffer.from('"}}')]);
    server.write(Buffer.concat([Buffer.from(`${create}\n`), notUtf8]));
    expect(await server.end()).toBe(0);
    const answers = server.messages().filter((message) => message.id === 6);
    expect(answers).toHaveLength(2);
    expect(answers).toContainEqual({ jsonrpc: "2.0", id: 6, error: { code: -32700, message: expect.stringMatching(/^Parse error: a line was not valid UTF-8/) } });
    expect(answers.some((message) => (message.result as { structuredContent?: { handoff: { title: string } } } | undefined)?.structuredContent?.handoff.title === "running when its id is refused")).toBe(true);
  });

  it("gets -32700 with its request's id for a line that is not UTF-8, and nothing is stored as U+FFFD", { timeout: 120_000 }, async () => {
    const server = await initializedServer();
    const call = (id: number, title: Buffer) =>
      Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"create_handoff","arguments":{"title":"`), title, Buffer.from('","content":"c"}}}')]);
    server.write(call(2, Buffer.from([0x61, 0xff, 0xfe, 0x62])));
    server.write(call(3, Buffer.from("valid")));
    await expect.poll(() => server.messages().some((message) => message.id === 3), { timeout: 30_000 }).toBe(true);
    expect(await server.end()).toBe(0);

    const messages = server.messages();
    expect(messages.find((message) => message.id === 2)).toEqual({ jsonrpc: "2.0", id: 2, error: { code: -32700, message: expect.stringMatching(/^Parse error: a line was not valid UTF-8/) } });
    expect((messages.find((message) => message.id === 3)?.result as { structuredContent: { handoff: { title: string } } }).structuredContent.handoff.title).toBe("valid");
  });

  it("gets -32600 with its request's id for a line over 1 MiB, read and dropped in passing, and the server goes on serving", { timeout: 120_000 }, async () => {
    const server = await initializedServer();
    const huge = (mib: number) => "x".repeat(mib * 1024 * 1024);
    // The SDK's clients write the id last; others first. 12 MiB is past the 10 MiB at which the SDK's own transport closed.
    server.write(JSON.stringify({ method: "tools/call", params: { name: "create_handoff", arguments: { title: "too long", content: huge(3) } }, jsonrpc: "2.0", id: 2 }));
    server.write(JSON.stringify({ jsonrpc: "2.0", id: "second", method: "tools/call", params: { name: "create_handoff", arguments: { title: "too long", content: huge(12) } } }));
    server.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 9, reason: huge(2) } }));
    server.write(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "create_handoff", arguments: { title: "fits", content: "a line under the cap" } } }));
    await expect.poll(() => server.messages().some((message) => message.id === 3), { timeout: 30_000 }).toBe(true);
    expect(await server.end()).toBe(0);

    const messages = server.messages();
    const tooLong = { code: -32600, message: expect.stringMatching(/^Invalid Request: a message of \d+ bytes is over the 1024 KiB .* nothing was stored/) };
    expect(messages.filter((message) => "error" in message)).toEqual([
      { jsonrpc: "2.0", id: 2, error: tooLong },
      { jsonrpc: "2.0", id: "second", error: tooLong },
      { jsonrpc: "2.0", id: null, error: tooLong },
    ]);
    const created = messages.find((message) => message.id === 3)?.result as { isError?: boolean; structuredContent: { handoff: { title: string } } };
    expect(created.isError).toBeFalsy();
    expect(created.structuredContent.handoff.title).toBe("fits");
  });
});

describe("a tool call over 1 MiB from the SDK's client", () => {
  it("fails at once with -32600 instead of waiting out the client's timeout, and the next call is served", async () => {
    const started = performance.now();
    const refused = await client.callTool({ name: "create_handoff", arguments: { title: "too long", content: "x".repeat(2 * 1024 * 1024) } }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).code).toBe(-32600);
    expect((refused as McpError).message).toMatch(/over the 1024 KiB Baton reads in one line/);
    expect(performance.now() - started).toBeLessThan(30_000);
    const after = await client.callTool({ name: "create_handoff", arguments: { title: "after the refusal", content: "served" } });
    expect(after.isError).toBeFalsy();
  });
});
