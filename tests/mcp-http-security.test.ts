import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DELETE, GET, POST } from "../app/api/mcp/route";
import { connectHttpClient, serveHandlers } from "../lib/mcp/clients";
import { checkMcpRequest, isLoopbackAddress, MAX_MCP_BODY_BYTES, mcpHttpPolicy, type McpRequestFacts } from "../lib/mcp/http-security";

const facts = (overrides: Partial<McpRequestFacts> = {}): McpRequestFacts => ({
  host: "127.0.0.1:3000",
  origin: null,
  authorization: null,
  contentLength: "100",
  ...overrides,
});

describe("checkMcpRequest (pure)", () => {
  const loopback = mcpHttpPolicy({});

  it("passes loopback Hosts on any port, with or without a same-machine Origin, when no token is set", () => {
    for (const host of ["localhost", "localhost:3000", "127.0.0.1:8080", "[::1]:3000", "LOCALHOST:1"]) {
      expect(checkMcpRequest(loopback, facts({ host }))).toEqual({ ok: true });
    }
    for (const origin of ["http://localhost:3000", "http://127.0.0.1:5173", "https://[::1]:8443"]) {
      expect(checkMcpRequest(loopback, facts({ origin }))).toEqual({ ok: true });
    }
  });

  it("refuses a rebinding Host and a missing Host with 403", () => {
    for (const host of ["evil.example:3000", "127.0.0.1.evil.example", "localhost.evil.example", "", "a b"]) {
      const verdict = checkMcpRequest(loopback, facts({ host }));
      expect(verdict).toMatchObject({ ok: false, status: 403, reason: expect.stringMatching(/^Host ".*" is not allowed; add it to BATON_MCP_ALLOWED_HOSTS/) });
    }
    expect(checkMcpRequest(loopback, facts({ host: null }))).toMatchObject({ ok: false, status: 403 });
  });

  it("refuses a foreign, opaque or non-http Origin with 403, but allows the Host's own origin", () => {
    for (const origin of ["https://evil.example", "http://localhost.evil.example:3000", "null", "file://", "chrome-extension://abc"]) {
      expect(checkMcpRequest(loopback, facts({ origin }))).toMatchObject({ ok: false, status: 403, reason: expect.stringMatching(/^Origin ".*" is not allowed/) });
    }
    const named = mcpHttpPolicy({ BATON_MCP_ALLOWED_HOSTS: "baton.lan" });
    expect(checkMcpRequest(named, facts({ host: "baton.lan:3000", origin: "http://baton.lan:3000" }))).toEqual({ ok: true });
    expect(checkMcpRequest(named, facts({ host: "baton.lan:3000", origin: "http://baton.lan:4000" }))).toMatchObject({ status: 403 });
  });

  it("extends both lists from the environment", () => {
    const policy = mcpHttpPolicy({ BATON_MCP_ALLOWED_HOSTS: "baton.lan, Box:8443", BATON_MCP_ALLOWED_ORIGINS: "https://claude.ai/, tools.lan" });
    expect(checkMcpRequest(policy, facts({ host: "baton.lan:3000" }))).toEqual({ ok: true });
    expect(checkMcpRequest(policy, facts({ host: "box:8443" }))).toEqual({ ok: true });
    expect(checkMcpRequest(policy, facts({ host: "box:9000" }))).toMatchObject({ status: 403 });
    expect(checkMcpRequest(policy, facts({ origin: "https://claude.ai" }))).toEqual({ ok: true });
    expect(checkMcpRequest(policy, facts({ origin: "http://claude.ai" }))).toMatchObject({ status: 403 });
    expect(checkMcpRequest(policy, facts({ origin: "http://tools.lan:8000" }))).toEqual({ ok: true });
  });

  it("enforces a configured token on loopback too: none or wrong → 401, right → pass", () => {
    const policy = mcpHttpPolicy({ BATON_MCP_TOKEN: "s3cret-token" });
    expect(checkMcpRequest(policy, facts())).toMatchObject({ ok: false, status: 401, reason: expect.stringMatching(/^a bearer token is required/) });
    expect(checkMcpRequest(policy, facts({ authorization: "Bearer nope" }))).toMatchObject({ ok: false, status: 401, reason: expect.stringMatching(/^the bearer token is wrong/) });
    expect(checkMcpRequest(policy, facts({ authorization: "Basic s3cret-token" }))).toMatchObject({ status: 401 });
    expect(checkMcpRequest(policy, facts({ authorization: "Bearer s3cret-token" }))).toEqual({ ok: true });
    expect(checkMcpRequest(policy, facts({ authorization: "bearer s3cret-token" }))).toEqual({ ok: true });
  });

  it("requires a token beyond loopback: without one configured nothing passes", () => {
    expect(mcpHttpPolicy({}).beyondLoopback).toBe(false);
    expect(mcpHttpPolicy({ BATON_LISTEN_HOST: "::1" }).beyondLoopback).toBe(false);
    const open = mcpHttpPolicy({ BATON_LISTEN_HOST: "0.0.0.0" });
    expect(open.beyondLoopback).toBe(true);
    expect(checkMcpRequest(open, facts())).toMatchObject({ ok: false, status: 403, reason: expect.stringMatching(/listens on 0\.0\.0\.0, beyond loopback, and BATON_MCP_TOKEN is not set/) });
    const guarded = mcpHttpPolicy({ BATON_LISTEN_HOST: "192.168.1.20", BATON_MCP_TOKEN: "t0ken" });
    expect(checkMcpRequest(guarded, facts({ host: "192.168.1.20:3000" }))).toMatchObject({ status: 401 });
    expect(checkMcpRequest(guarded, facts({ host: "192.168.1.20:3000", authorization: "Bearer t0ken" }))).toEqual({ ok: true });
  });

  it("refuses a declared body over the limit with 413", () => {
    expect(checkMcpRequest(loopback, facts({ contentLength: String(MAX_MCP_BODY_BYTES) }))).toEqual({ ok: true });
    expect(checkMcpRequest(loopback, facts({ contentLength: String(MAX_MCP_BODY_BYTES + 1) }))).toMatchObject({ ok: false, status: 413 });
  });

  it("knows loopback addresses", () => {
    expect(["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"].every(isLoopbackAddress)).toBe(true);
    expect(["0.0.0.0", "::", "192.168.1.2", "example.com"].some(isLoopbackAddress)).toBe(false);
  });
});

/** A raw POST with exactly the given headers (fetch would set Host and Origin itself). */
function rawPost(origin: string, path: string, headers: Record<string, string>, body: string | Buffer, method = "POST") {
  const url = new URL(path, origin);
  return new Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    const request = http.request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers, setHost: false }, (response) => {
      let text = "";
      response.on("data", (chunk: Buffer) => (text += chunk.toString()));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text, headers: response.headers }));
    });
    request.on("error", reject);
    request.end(body);
  });
}

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});
const jsonHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream" };

describe("the /api/mcp route handler with a token configured", () => {
  let server: Awaited<ReturnType<typeof serveHandlers>>;
  let host: string;
  beforeAll(async () => {
    process.env.BATON_MCP_TOKEN = "route-token";
    server = await serveHandlers({ "/api/mcp": { POST, GET, DELETE } });
    host = new URL(server.origin).host;
  });
  afterAll(async () => {
    delete process.env.BATON_MCP_TOKEN;
    await server?.close();
  });

  const post = (headers: Record<string, string>, body: string | Buffer = initialize) => rawPost(server.origin, "/api/mcp", { ...jsonHeaders, ...headers }, body);
  const reasonOf = (body: string) => (JSON.parse(body) as { error: { message: string } }).error.message;

  it("answers the right request", async () => {
    const response = await post({ host, authorization: "Bearer route-token", origin: `http://localhost:3000` });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ result: { serverInfo: { name: "baton" } } });
  });

  it("refuses a foreign Origin and a rebinding Host with 403 and a one-line reason", async () => {
    const foreign = await post({ host, authorization: "Bearer route-token", origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect(reasonOf(foreign.body)).toBe('Origin "https://evil.example" is not allowed; add it to BATON_MCP_ALLOWED_ORIGINS to let pages from it call Baton');
    const rebound = await post({ host: "attacker.example:3000", authorization: "Bearer route-token" });
    expect(rebound.status).toBe(403);
    expect(reasonOf(rebound.body)).not.toContain("\n");
    expect(reasonOf(rebound.body)).toMatch(/^Host "attacker\.example:3000" is not allowed/);
  });

  it("refuses no token and a wrong token with 401 and a Bearer challenge", async () => {
    const missing = await post({ host });
    expect(missing.status).toBe(401);
    expect(missing.headers["www-authenticate"]).toBe('Bearer realm="baton"');
    expect(reasonOf(missing.body)).toMatch(/^a bearer token is required/);
    const wrong = await post({ host, authorization: "Bearer not-it" });
    expect(wrong.status).toBe(401);
    expect(reasonOf(wrong.body)).toMatch(/^the bearer token is wrong/);
  });

  it("refuses a body over 1 MiB with 413, declared or streamed", async () => {
    const big = Buffer.alloc(MAX_MCP_BODY_BYTES + 10, "a");
    const declared = await post({ host, authorization: "Bearer route-token", "content-length": String(big.length) }, big);
    expect(declared.status).toBe(413);
    const streamed = await post({ host, authorization: "Bearer route-token", "transfer-encoding": "chunked" }, big);
    expect(streamed.status).toBe(413);
  });

  it("answers GET and DELETE with 405", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await rawPost(server.origin, "/api/mcp", { host, accept: "text/event-stream" }, "", method);
      expect(response.status).toBe(405);
      expect(response.headers.allow).toBe("POST");
    }
  });

  it("lets the SDK client in with the token and refuses it without", async () => {
    const client = await connectHttpClient(`${server.origin}/api/mcp`, { authorization: "Bearer route-token" });
    expect((await client.listTools()).tools.length).toBeGreaterThanOrEqual(5);
    await client.close();
    await expect(connectHttpClient(`${server.origin}/api/mcp`)).rejects.toThrow(/401|bearer token is required/);
  });

  it("refuses an unknown ?as identity with 400", async () => {
    const response = await rawPost(server.origin, "/api/mcp?as=desktop", { ...jsonHeaders, host, authorization: "Bearer route-token" }, initialize);
    expect(response.status).toBe(400);
    expect(reasonOf(response.body)).toBe('the as query parameter must be "chat" or "code"');
  });
});
