import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countRows } from "./support/rows";
import { MAX_CONTENT_BYTES } from "../lib/handoffs";
import { connectHttpClient, connectStdioClient, rawStdioServer } from "./support/mcp-clients";
import { serveApi } from "./support/api-server";

type Json = Record<string, unknown>;
type ToolResult = { isError: boolean; text: string; data: Json };

async function call(client: Client, name: string, args: Json): Promise<ToolResult> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { text: string }[])[0].text;
  return { isError: result.isError === true, text, data: (result.structuredContent ?? {}) as Json };
}

async function ok(client: Client, name: string, args: Json): Promise<Json> {
  const result = await call(client, name, args);
  expect(result.isError, result.text).toBe(false);
  return result.data;
}

async function refused(client: Client, name: string, args: Json, message: RegExp): Promise<string> {
  const result = await call(client, name, args);
  expect(result.isError).toBe(true);
  expect(result.text).toMatch(message);
  expect(result.text).not.toMatch(/\n\s+at /); // never a stack trace
  return result.text;
}

const idOf = (data: Json) => (data.handoff as { id: string }).id;
const entryOf = (data: Json) => data.entry as { from_client: string; seq: number };

/** Default server (chat) and one whose identity is code, over either transport. */
type Servers = { plain: Client; asCode: Client; close: () => Promise<void> };

const transports: Record<string, () => Promise<Servers>> = {
  stdio: async () => {
    const [plain, asCode] = await Promise.all([connectStdioClient(), connectStdioClient({ args: ["--as", "code"] })]);
    return { plain: plain.client, asCode: asCode.client, close: async () => void (await Promise.all([plain.client.close(), asCode.client.close()])) };
  },
  http: async () => {
    const server = await serveApi();
    const [plain, asCode] = await Promise.all([
      connectHttpClient(`${server.origin}/api/mcp`),
      connectHttpClient(`${server.origin}/api/mcp?as=code`),
    ]);
    return {
      plain,
      asCode,
      close: async () => {
        await Promise.all([plain.close(), asCode.close()]);
        await server.close();
      },
    };
  },
};

describe.each(Object.keys(transports))("edge cases over %s", (transport) => {
  let servers: Servers;
  let id: string;
  beforeAll(async () => {
    servers = await transports[transport]();
    id = idOf(await ok(servers.plain, "create_handoff", { title: "Edges", content: "start" }));
  });
  afterAll(async () => {
    await servers?.close();
  });

  it("an unknown ID is a tool error that says to check the ID", async () => {
    await refused(servers.plain, "get_handoff", { id: "hof_AAAAAAAAAAAAAAAAAAAAA" }, /handoff hof_AAAAAAAAAAAAAAAAAAAAA not found; check the ID/);
    await refused(servers.plain, "add_to_handoff", { id: "hof_AAAAAAAAAAAAAAAAAAAAA", type: "task", content: "x" }, /not found/);
    await refused(servers.plain, "mark_handoff_read", { id: "hof_AAAAAAAAAAAAAAAAAAAAA" }, /not found/);
    await refused(servers.plain, "close_handoff", { id: "hof_AAAAAAAAAAAAAAAAAAAAA" }, /not found/);
  });

  it("a malformed ID is refused with what an ID looks like; a pasted ID in backticks or a URL is accepted", async () => {
    await refused(servers.plain, "get_handoff", { id: "abc123" }, /"abc123" is not a handoff ID; IDs look like hof_ followed by 21/);
    await refused(servers.plain, "get_handoff", {}, /id is required/);
    const quoted = await ok(servers.plain, "get_handoff", { id: `\`${id}\`` });
    expect(idOf(quoted)).toBe(id);
    const fromUrl = await ok(servers.plain, "get_handoff", { id: `http://127.0.0.1:3000/handoffs/${id}` });
    expect(idOf(fromUrl)).toBe(id);
  });

  it("an invalid type, empty content and content over 64 KiB are refused and store nothing", async () => {
    const before = await countRows("handoff_entries", "handoff_id = ?", [id]);
    await refused(servers.plain, "add_to_handoff", { id, type: "note", content: "x" }, /type "note" is not an entry type; use one of context, task, progress, question, decision, done/);
    await refused(servers.plain, "add_to_handoff", { id, type: "task", content: "   " }, /content must not be empty/);
    await refused(servers.plain, "add_to_handoff", { id, type: "task", content: "é".repeat(MAX_CONTENT_BYTES / 2 + 1) }, /content must be at most 64 KiB/);
    await refused(servers.plain, "create_handoff", { title: "", content: "x" }, /title must not be empty/);
    await refused(servers.plain, "create_handoff", { title: "\u200b\u200b", content: "x" }, /title must not be empty \(characters that print nothing/);
    await refused(servers.plain, "add_to_handoff", { id, type: "task", content: "\u2060" }, /content must not be empty \(characters that print nothing/);
    await refused(servers.plain, "create_handoff", { title: "t", content: "x", project: "Not A Tag" }, /project must be 1–40 characters/);
    await refused(servers.plain, "get_handoff", { id, as_client: "desktop" }, /as_client must be "chat" or "code"/);
    expect(await countRows("handoff_entries", "handoff_id = ?", [id])).toBe(before);
    // Exactly at the limit is fine.
    await ok(servers.plain, "add_to_handoff", { id, type: "context", content: "a".repeat(MAX_CONTENT_BYTES) });
  });

  it("an argument the tool does not take is refused, naming the one meant, and stores nothing", async () => {
    const before = await countRows("handoff_entries", "handoff_id = ?", [id]);
    // REST's spelling of the side: dropped, it used to store the entry as the server's default side.
    const text = await refused(servers.plain, "add_to_handoff", { id, type: "task", content: "x", asClient: "code" }, /asClient is not a field here \(did you mean as_client\?\)/);
    expect(text).toMatch(/this takes id, type, content, answers, as_client, repo_path/);
    await refused(servers.plain, "create_handoff", { title: "t", content: "x", colour: "red" }, /colour is not a field here; this takes/);
    expect(await countRows("handoff_entries", "handoff_id = ?", [id])).toBe(before);
    const { tools } = await servers.plain.listTools();
    for (const tool of tools) expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
  });

  it("params that do not fit their method are -32602 Invalid params in one line, not an internal error with the schema's issues", async () => {
    const before = await countRows("handoff_entries");
    const malformed: [string, Json][] = [
      ["tools/call", { name: "add_to_handoff", arguments: ["x"] }],
      ["resources/read", { uri: 5 }],
      ["prompts/get", { name: "continue_handoff", arguments: { id: 5 } }],
    ];
    for (const [method, params] of malformed) {
      const error = await servers.plain.request({ method, params } as never, z.looseObject({})).then(
        () => null,
        (failure: unknown) => failure,
      );
      expect(error, method).toBeInstanceOf(McpError);
      expect((error as McpError).code, method).toBe(-32602);
      expect((error as McpError).message, method).toMatch(new RegExp(`Invalid params for ${method}: params\\.`));
      expect((error as McpError).message, method).not.toMatch(/\n|"expected"/);
    }
    expect(await countRows("handoff_entries")).toBe(before);
  });

  it("a tool or prompt named like an Object property (constructor, __proto__, toString) is not found, never \"disabled\"", async () => {
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      const text = await servers.plain.callTool({ name, arguments: {} }).then(
        (result) => (result.content as { text: string }[])[0].text,
        (error: unknown) => (error as Error).message,
      );
      expect(text, name).toMatch(new RegExp(`Tool ${name} not found`));
      const prompt = await servers.plain.getPrompt({ name }).then(
        () => "",
        (error: unknown) => (error as Error).message,
      );
      expect(prompt, name).toMatch(new RegExp(`Prompt ${name} not found`));
    }
  });

  it("adding to a completed handoff is refused; the closed row stays", async () => {
    const closing = idOf(await ok(servers.plain, "create_handoff", { title: "To close", content: "x" }));
    await ok(servers.plain, "close_handoff", { id: closing });
    await refused(servers.plain, "add_to_handoff", { id: closing, type: "task", content: "late" }, new RegExp(`handoff ${closing} is completed; entries can no longer be added`));
    const again = await ok(servers.plain, "close_handoff", { id: closing });
    expect(again.status).toBe("completed");
  });

  it("as_client omitted is chat on a default server and code on a code server; an explicit as_client wins", async () => {
    expect(entryOf(await ok(servers.plain, "add_to_handoff", { id, type: "progress", content: "default" })).from_client).toBe("chat");
    const byCode = await ok(servers.asCode, "add_to_handoff", { id, type: "progress", content: "server default" });
    expect(entryOf(byCode).from_client).toBe("code");
    expect((byCode.handoff as { code_last_seen: number }).code_last_seen).toBe(entryOf(byCode).seq);
    expect(entryOf(await ok(servers.asCode, "add_to_handoff", { id, type: "decision", content: "explicit", as_client: "chat" })).from_client).toBe("chat");
    expect(entryOf(await ok(servers.plain, "add_to_handoff", { id, type: "done", content: "explicit", as_client: "code" })).from_client).toBe("code");

    // Reads and cursors follow the same identity.
    const codeView = await ok(servers.asCode, "get_handoff", { id });
    const chatView = await ok(servers.plain, "get_handoff", { id });
    const handoff = codeView.handoff as { chat_last_seen: number; code_last_seen: number };
    const seqs = (entries: unknown) => (entries as { seq: number }[]).map((entry) => entry.seq);
    expect(seqs(codeView.new_entries)).toEqual(seqs(codeView.entries).filter((seq) => seq > handoff.code_last_seen));
    expect(seqs(chatView.new_entries)).toEqual(seqs(chatView.entries).filter((seq) => seq > handoff.chat_last_seen));
    const marked = await ok(servers.asCode, "mark_handoff_read", { id });
    expect(marked.code_last_seen).toBe(Math.max(...seqs(codeView.entries)));
    expect(marked.chat_last_seen).toBe(handoff.chat_last_seen);
  });
});

describe("the stdio server process", () => {
  it("takes its identity from BATON_CLIENT when --as is absent, and --as over BATON_CLIENT", async () => {
    const fromEnv = await connectStdioClient({ env: { BATON_CLIENT: "code" } });
    const flagWins = await connectStdioClient({ args: ["--as=chat"], env: { BATON_CLIENT: "code" } });
    try {
      const created = await ok(fromEnv.client, "create_handoff", { title: "Env identity", content: "x" });
      expect((created.entries as { from_client: string }[])[0].from_client).toBe("code");
      const added = await ok(flagWins.client, "add_to_handoff", { id: idOf(created), type: "task", content: "y" });
      expect(entryOf(added).from_client).toBe("chat");
      expect(fromEnv.stderr()).toMatch(/serving over stdio as code/);
    } finally {
      await Promise.all([fromEnv.client.close(), flagWins.client.close()]);
    }
  });

  it("refuses a bad --as with usage on stderr and exit code 2", async () => {
    const child = spawn(process.execPath, ["bin/baton.mjs", "mcp", "--as", "desktop"], { cwd: path.resolve(import.meta.dirname, ".."), env: process.env });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(/--as must be "chat" or "code", got "desktop"/);
    expect(stderr).toMatch(/usage: baton mcp/);
  });

  it("fails to start with one line naming the database when it cannot be prepared", async () => {
    const blocker = fs.mkdtempSync(path.join(os.tmpdir(), "baton-mcp-blocked-"));
    const file = path.join(blocker, "not-a-folder");
    fs.writeFileSync(file, "a file where the data folder should be");
    try {
      const child = spawn(process.execPath, ["bin/baton.mjs", "mcp"], {
        cwd: path.resolve(import.meta.dirname, ".."),
        env: { ...process.env, BATON_DATA_DIR: path.join(file, "data"), DATABASE_URL: "" },
      });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      expect(await new Promise((resolve) => child.once("exit", resolve))).toBe(1);
      expect(stderr).toMatch(/^baton mcp: could not prepare the database .*not-a-folder\/data\/baton\.db \(.*\); check BATON_DATA_DIR/m);
      expect(stderr).not.toMatch(/\n\s+at /);
    } finally {
      fs.rmSync(blocker, { recursive: true, force: true });
    }
  });

  // PostgreSQL's pool keeps idle connections for 10 s, and a resource subscription holds the
  // change feed's LISTEN connection: neither may keep the process after its client left.
  it("exits as soon as stdin ends, with a resource subscription open, on this run's engine", async () => {
    const server = rawStdioServer(["bin/baton.mjs", "mcp"]);
    const send = (message: Json) => server.write(JSON.stringify({ jsonrpc: "2.0", ...message }));
    const answer = async (id: number) => {
      await expect.poll(() => server.messages().some((message) => message.id === id), { timeout: 60_000 }).toBe(true);
      return server.messages().find((message) => message.id === id)!;
    };
    send({ id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
    send({ method: "notifications/initialized" });
    send({ id: 2, method: "tools/call", params: { name: "create_handoff", arguments: { title: "Leaving", content: "first" } } });
    const created = (await answer(2)) as { result: { structuredContent: Json } };
    send({ id: 3, method: "resources/subscribe", params: { uri: `baton://handoffs/${idOf(created.result.structuredContent)}` } });
    await answer(3);
    const endedAt = performance.now();
    expect(await server.end()).toBe(0);
    // Well under the pool's idle timeout (10 s), which an open pool would wait out.
    expect(performance.now() - endedAt).toBeLessThan(5_000);
  });

  it("writes only JSON-RPC messages to stdout and works on a fresh, empty data folder", async () => {
    const fresh = fs.mkdtempSync(path.join(os.tmpdir(), "baton-mcp-fresh-"));
    try {
      const server = rawStdioServer(["bin/baton.mjs", "mcp"], { BATON_DATA_DIR: fresh, DATABASE_URL: "" });
      const send = (message: Json) => server.write(JSON.stringify({ jsonrpc: "2.0", ...message }));
      send({ id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
      send({ method: "notifications/initialized" });
      send({ id: 2, method: "tools/call", params: { name: "create_handoff", arguments: { title: "Fresh", content: "first" } } });
      await expect.poll(() => server.messages().length, { timeout: 60_000 }).toBe(2);
      expect(await server.end()).toBe(0);
      const messages = server.messages();
      expect(messages.map((message) => message.jsonrpc)).toEqual(["2.0", "2.0"]);
      const created = (messages[1].result as { structuredContent: Json; isError?: boolean });
      expect(created.isError).toBeFalsy();
      expect((created.structuredContent.handoff as { title: string }).title).toBe("Fresh");
      expect(fs.existsSync(path.join(fresh, "baton.db"))).toBe(true);
    } finally {
      fs.rmSync(fresh, { recursive: true, force: true });
    }
  });
});
