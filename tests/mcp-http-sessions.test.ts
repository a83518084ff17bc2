import http from "node:http";
import type net from "node:net";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createToken } from "../lib/auth";
import { changeFeedStats } from "../lib/changes";
import { write } from "../lib/database";
import { guardPolicy } from "../lib/guard";
import { createHandoff } from "../lib/handoffs";
import { MAX_SUBSCRIPTIONS } from "../lib/mcp/resources";
import { countRows } from "./support/rows";
import { IDLE_MS, MAX_QUEUED_MESSAGES, MAX_SESSIONS_PER_CALLER, openSessionCount } from "../lib/mcp/http-sessions";
import { createBatonHttpServer } from "../lib/server";
import { serveApi, type ApiServer } from "./support/api-server";

/**
 * Streamable HTTP sessions (lib/mcp/http-sessions.ts) through Baton's own server on a real
 * socket: the guard decides each request's caller from its credentials and its peer.
 */
let served: ApiServer;
let tokenA: string;
let tokenB: string;
beforeAll(async () => {
  served = await serveApi();
  tokenA = (await createToken({ name: "sessions-a", role: "agent" })).token;
  tokenB = (await createToken({ name: "sessions-b", role: "agent" })).token;
});
afterAll(() => served?.close());

const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "sessions-test", version: "1" } },
});
const toolsList = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const post = (body: string, extra: Record<string, string> = {}) => served.fetch("/api/mcp", { method: "POST", headers: { ...headers, ...extra }, body });

async function openSession(credentials: Record<string, string>): Promise<string> {
  const response = await post(initialize, credentials);
  expect(response.status).toBe(200);
  const id = response.headers.get("mcp-session-id");
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  return id!;
}

describe("MCP sessions over HTTP", () => {
  it("an initialize opens a session that only its caller can use: another token and the open desk get 404 for POST, GET and DELETE", async () => {
    const before = openSessionCount();
    const id = await openSession(bearer(tokenA));
    expect(openSessionCount()).toBe(before + 1);
    const listed = await post(toolsList, { "mcp-session-id": id, ...bearer(tokenA) });
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThanOrEqual(10);

    for (const other of [bearer(tokenB), {}]) {
      const stolen = await post(toolsList, { "mcp-session-id": id, ...other });
      expect(stolen.status).toBe(404);
      expect(((await stolen.json()) as { error: { message: string } }).error.message).toMatch(/no such MCP session/);
      const stream = await served.fetch("/api/mcp", { headers: { accept: "text/event-stream", "mcp-session-id": id, ...other } });
      expect(stream.status).toBe(404);
      expect((await served.fetch("/api/mcp", { method: "DELETE", headers: { "mcp-session-id": id, ...other } })).status).toBe(404);
    }
    expect(openSessionCount()).toBe(before + 1);

    const ended = await served.fetch("/api/mcp", { method: "DELETE", headers: { "mcp-session-id": id, ...bearer(tokenA) } });
    expect(ended.status).toBe(200);
    expect(openSessionCount()).toBe(before);
    expect((await post(toolsList, { "mcp-session-id": id, ...bearer(tokenA) })).status).toBe(404);
  });

  it("a DELETE the transport refuses (a protocol version it does not speak) ends nothing: the session still answers", async () => {
    const id = await openSession(bearer(tokenB));
    const refused = await served.fetch("/api/mcp", { method: "DELETE", headers: { "mcp-session-id": id, "mcp-protocol-version": "1999-01-01", ...bearer(tokenB) } });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/Unsupported protocol version/);
    expect((await post(toolsList, { "mcp-session-id": id, ...bearer(tokenB) })).status).toBe(200);
    expect((await served.fetch("/api/mcp", { method: "DELETE", headers: { "mcp-session-id": id, ...bearer(tokenB) } })).status).toBe(200);
    expect((await post(toolsList, { "mcp-session-id": id, ...bearer(tokenB) })).status).toBe(404);
  });

  it("caps sessions per caller: one caller's initializes end only its own oldest sessions", async () => {
    const victim = await openSession(bearer(tokenB));
    const flood: string[] = [];
    for (let index = 0; index < MAX_SESSIONS_PER_CALLER + 8; index++) flood.push(await openSession(bearer(tokenA)));
    expect((await post(toolsList, { "mcp-session-id": victim, ...bearer(tokenB) })).status).toBe(200);
    expect((await post(toolsList, { "mcp-session-id": flood[0], ...bearer(tokenA) })).status).toBe(404);
    expect((await post(toolsList, { "mcp-session-id": flood.at(-1)!, ...bearer(tokenA) })).status).toBe(200);
  });

  it("an unknown session id is 404, GET and DELETE without one are 405, and a request without one is served statelessly", async () => {
    expect((await post(toolsList, { "mcp-session-id": "00000000-0000-0000-0000-000000000000" })).status).toBe(404);
    expect((await served.fetch("/api/mcp", { headers: { accept: "text/event-stream" } })).status).toBe(405);
    expect((await served.fetch("/api/mcp", { method: "DELETE" })).status).toBe(405);
    const stateless = await post(toolsList);
    expect(stateless.status).toBe(200);
    expect(stateless.headers.get("mcp-session-id")).toBeNull();
  });
});

describe("a session's GET stream", () => {
  it("keeps its session past the idle time while it is open (the client listens for notifications); a session without one ends", async () => {
    const credentials = bearer((await createToken({ name: "sessions-listening", role: "agent" })).token);
    const listening = await openSession(credentials);
    const idle = await openSession(credentials);
    const stream = new AbortController();
    const opened = await served.fetch("/api/mcp", { headers: { accept: "text/event-stream", "mcp-session-id": listening, ...credentials }, signal: stream.signal });
    expect(opened.status).toBe(200);
    try {
      // The clock alone moves past the idle time; the next initialize sweeps.
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(Date.now() + IDLE_MS + 60_000);
      await openSession(credentials);
      expect((await post(toolsList, { "mcp-session-id": idle, ...credentials })).status).toBe(404);
      expect((await post(toolsList, { "mcp-session-id": listening, ...credentials })).status).toBe(200);
    } finally {
      vi.useRealTimers();
      stream.abort();
    }
  });


  it(`drops the connection once ${MAX_QUEUED_MESSAGES} notifications wait for a client that does not read it (the SDK queued them all), and the session goes on`, async () => {
    // Baton's server as serveApi starts it, here for the server's side of the stream's connection.
    const own = createBatonHttpServer({ policy: guardPolicy({}) });
    const accepted: net.Socket[] = [];
    own.on("connection", (socket: net.Socket) => accepted.push(socket));
    await new Promise<void>((resolve) => own.listen(0, "127.0.0.1", resolve));
    const port = (own.address() as net.AddressInfo).port;
    const ownPost = (body: string, extra: Record<string, string>) => fetch(`http://127.0.0.1:${port}/api/mcp`, { method: "POST", headers: { ...headers, ...extra }, body });
    try {
      const credentials = bearer(tokenA);
      const initialized = await ownPost(initialize, credentials);
      const id = initialized.headers.get("mcp-session-id")!;
      const inSession = { "mcp-session-id": id, "mcp-protocol-version": LATEST_PROTOCOL_VERSION, ...credentials };
      expect((await ownPost(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), inSession)).status).toBe(202);
      // Many subscribed handoffs, so that one round of changes makes many notifications (one per URI and read of the feed).
      const handoffIds: string[] = [];
      for (let index = 0; index < MAX_SUBSCRIPTIONS; index++) handoffIds.push((await createHandoff({ title: `unread stream ${index}`, content: "followed" })).handoff.id);
      for (const [index, handoffId] of handoffIds.entries()) {
        const subscribed = await ownPost(JSON.stringify({ jsonrpc: "2.0", id: 100 + index, method: "resources/subscribe", params: { uri: `baton://handoffs/${handoffId}` } }), inSession);
        expect(((await subscribed.json()) as { error?: unknown }).error).toBeUndefined();
      }

      // A client that opens the stream and reads nothing: the socket fills, then the server's queue.
      const stream = await new Promise<http.IncomingMessage>((resolve, reject) =>
        http.get({ host: "127.0.0.1", port, path: "/api/mcp", headers: { accept: "text/event-stream", ...inSession } }, resolve).on("error", reject),
      );
      expect(stream.statusCode).toBe(200);
      stream.pause();
      stream.on("error", () => {});
      const serverSide = accepted.find((socket) => socket.remotePort === stream.socket.localPort)!;

      // Past what the sockets' buffers take on loopback (about 4 MB, 30,000 notifications here), then the bound.
      const rounds = 200;
      for (let round = 0; round < rounds; round++) {
        const read = changeFeedStats().rowsRead;
        // What the triggers append for a write to each of them, in one transaction: one read of the feed.
        await write((tx) => tx.run(`INSERT INTO changes (subject, action, handoff_id) VALUES ${handoffIds.map(() => "('handoff', 'updated', ?)").join(", ")}`, handoffIds));
        await expect.poll(() => changeFeedStats().rowsRead - read, { interval: 2 }).toBeGreaterThanOrEqual(handoffIds.length);
      }
      // Given up, the stream takes its connection and what was queued on it along: the client,
      // still reading nothing, holds no memory of the server's (it opens the stream again).
      await expect.poll(() => serverSide.destroyed, { timeout: 5_000 }).toBe(true);
      // The session itself stays: its client may open the stream again.
      expect((await ownPost(toolsList, inSession)).status).toBe(200);
      stream.destroy();
      await fetch(`http://127.0.0.1:${port}/api/mcp`, { method: "DELETE", headers: inSession });
    } finally {
      own.closeAllConnections();
      await new Promise((resolve) => own.close(resolve));
    }
  }, 120_000);
});

describe("repo_path over HTTP", () => {
  const createWith = (extra: Record<string, string>) =>
    post(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "create_handoff", arguments: { title: "repo path", content: "x", repo_path: process.cwd() } },
      }),
      extra,
    ).then((response) => response.json() as Promise<{ result: { isError?: boolean; content: { text: string }[] } }>);

  it("is honoured for callers on this machine (the open desk, a token on loopback) and refused for a remote token holder, who could point git at any folder", async () => {
    expect((await createWith({})).result.isError).toBeFalsy();
    expect((await createWith(bearer(tokenA))).result.isError).toBeFalsy();
    const handoffs = () => countRows("handoffs");
    const before = await handoffs();
    // Behind a proxy counts as beyond loopback, whatever the socket says; Baton's own header names change nothing.
    const remote = await createWith({ ...bearer(tokenA), "x-forwarded-for": "203.0.113.7", "x-baton-principal": "local" });
    expect(remote.result.isError).toBe(true);
    expect(remote.result.content[0].text).toMatch(/repo_path over MCP\) is read only for callers on Baton's own machine/);
    expect(await handoffs()).toBe(before);
  });
});

describe("the body, read once for the whole door", () => {
  it("answers a body that is not JSON with JSON-RPC's parse error, after the transport's Accept check, as the SDK does", async () => {
    const notJson = await post("{not json");
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: { code: number } }).error.code).toBe(-32700);
    const notAccepted = await served.fetch("/api/mcp", { method: "POST", headers: { "content-type": "application/json", accept: "text/html" }, body: "{not json" });
    expect(notAccepted.status).toBe(406);
  });

  it("refuses a body that is not UTF-8 with 400 and stores nothing (read leniently, its bad bytes would have been stored as U+FFFD)", async () => {
    const before = await countRows("handoffs");
    const call = (title: Buffer) =>
      Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_handoff","arguments":{"title":"'), title, Buffer.from('","content":"c"}}}')]);
    const refused = await served.fetch("/api/mcp", { method: "POST", headers, body: call(Buffer.from([0x61, 0xff, 0xfe])) });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/not valid UTF-8/);
    expect(await countRows("handoffs")).toBe(before);
  });

  it("refuses a batch whose requests share an id, running none of it (each write was stored and only the first answered), and an empty batch", async () => {
    const create = (id: number, title: string) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "create_handoff", arguments: { title, content: "c" } } });
    const before = await countRows("handoffs");
    const shared = await post(JSON.stringify([create(7, "batch shares an id, a"), create(7, "batch shares an id, b")]));
    expect(shared.status).toBe(400);
    expect(await shared.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "Invalid Request: requests in one batch share the id 7; give each its own id: nothing was run" },
    });
    expect(await countRows("handoffs")).toBe(before);

    const empty = await post("[]");
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { error: { code: number } }).error.code).toBe(-32600);

    // A batch of distinct ids is served as before: an answer each.
    const distinct = await post(JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "ping" }, { jsonrpc: "2.0", id: "1", method: "ping" }]));
    expect(distinct.status).toBe(200);
    expect(await distinct.json()).toEqual([
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: "1", result: {} },
    ]);
  });

  it("refuses a body over the door's limit", async () => {
    const big = await post(JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list", params: { pad: "x".repeat(1024 * 1024) } }));
    expect(big.status).toBe(413);
  });
});
