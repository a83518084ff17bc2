import type http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToken, revokeToken, signIn, verifySession } from "../lib/auth";
import { read, storedDate, write } from "../lib/database";
import {
  agentMayReach,
  BODY_LIMITS,
  bodyClassOf,
  carriesForwarding,
  guardPolicy,
  isLoopbackAddress,
  isPublicRequest,
  repeatedFieldRefusal,
  requestTargetRefusal,
  screenFacts,
  type GuardPolicy,
  type RequestFacts,
} from "../lib/guard";
import { currentCaller } from "../lib/caller";
import { connectHttpClient } from "./support/mcp-clients";
import { createBatonHttpServer, startRefusal } from "../lib/server";
import { rawRequest } from "./support/raw-http";

const facts = (overrides: Partial<RequestFacts> = {}): RequestFacts => ({
  method: "POST",
  path: "/api/handoffs",
  host: "127.0.0.1:3000",
  origin: null,
  secFetchSite: null,
  secFetchMode: null,
  secFetchDest: null,
  contentType: "application/json",
  contentLength: "100",
  transferEncoding: null,
  peerAddress: "127.0.0.1",
  localAddress: "127.0.0.1",
  forwarded: false,
  ...overrides,
});

describe("screenFacts (pure)", () => {
  const open = guardPolicy({});

  it("admits loopback Hosts on any port and the IP the client connected to; refuses rebinding names with 403", () => {
    for (const host of ["localhost", "localhost:3000", "127.0.0.1:8080", "[::1]:3000", "LOCALHOST:1"]) {
      expect(screenFacts(open, facts({ host }))).toMatchObject({ ok: true });
    }
    expect(screenFacts(open, facts({ host: "10.200.0.1:3000", localAddress: "10.200.0.1" }))).toMatchObject({ ok: true });
    expect(screenFacts(open, facts({ host: "10.200.0.1:3000", localAddress: "::ffff:10.200.0.1" }))).toMatchObject({ ok: true });
    for (const host of ["evil.example:3000", "127.0.0.1.evil.example", "localhost.evil.example", "", "a b", "user@localhost", "10.200.0.2"]) {
      expect(screenFacts(open, facts({ host, localAddress: "10.200.0.1" }))).toMatchObject({ ok: false, status: 403, reason: expect.stringMatching(/^Host ".*" is not allowed; add it to BATON_ALLOWED_HOSTS/) });
    }
    expect(screenFacts(open, facts({ host: null }))).toMatchObject({ ok: false, status: 403 });
    for (const method of ["GET", "HEAD"]) expect(screenFacts(open, facts({ method, host: "rebind.evil.example:3000" }))).toMatchObject({ status: 403 });
  });

  it("refuses writes from a foreign, opaque or non-http Origin and from Sec-Fetch-Site: cross-site; reads are not origin-checked", () => {
    for (const origin of ["https://evil.example", "http://localhost:5173", "http://localhost.evil.example:3000", "null", "file://", "chrome-extension://abc"]) {
      expect(screenFacts(open, facts({ origin }))).toMatchObject({ ok: false, status: 403, reason: expect.stringMatching(/^Origin ".*" may not change anything/) });
    }
    expect(screenFacts(open, facts({ origin: "http://127.0.0.1:3000" }))).toMatchObject({ ok: true });
    expect(screenFacts(open, facts({ secFetchSite: "cross-site" }))).toMatchObject({ ok: false, status: 403, reason: expect.stringContaining("cross-site") });
    expect(screenFacts(open, facts({ secFetchSite: "same-origin", origin: "http://127.0.0.1:3000" }))).toMatchObject({ ok: true });
    expect(screenFacts(open, facts({ method: "GET", origin: "https://evil.example", secFetchSite: "cross-site", secFetchMode: "navigate", secFetchDest: "document" }))).toMatchObject({ ok: true });
  });

  it("refuses what another origin's page (another site, or another port: same-site) loads from Baton (image, script, fetch, event stream, object, frame), not a link followed from it", () => {
    const read = (overrides: Partial<RequestFacts>) => screenFacts(open, facts({ method: "GET", contentType: null, contentLength: null, ...overrides }));
    // A frame too: no answer of Baton's may be framed, and a cross-site frame's load time would still say whether a search found something.
    const loads = [["no-cors", "image"], ["no-cors", "script"], ["cors", "empty"], ["navigate", "object"], ["navigate", "embed"], ["navigate", "iframe"], ["navigate", "frame"], [null, null]] as const;
    for (const [mode, dest] of loads) {
      for (const path of ["/api/search", "/api/events", "/handoffs", "/_next/static/chunks/app.js"]) {
        for (const site of ["cross-site", "same-site"]) {
          expect(read({ path, secFetchSite: site, secFetchMode: mode, secFetchDest: dest }), `${site} ${mode} ${dest} ${path}`).toMatchObject({
            ok: false,
            status: 403,
            reason: expect.stringContaining(`may link to Baton but not load from it (Sec-Fetch-Site: ${site}`),
          });
        }
      }
    }
    for (const site of ["cross-site", "same-site"]) {
      for (const path of ["/handoffs", "/api/handoffs?q=secret"]) expect(read({ path, secFetchSite: site, secFetchMode: "navigate", secFetchDest: "document" })).toMatchObject({ ok: true });
    }
    for (const site of ["same-origin", "none", null]) {
      expect(read({ path: "/api/search", secFetchSite: site, secFetchMode: "cors", secFetchDest: "empty" }), String(site)).toMatchObject({ ok: true });
    }
    // A write keeps its own refusal, whatever its mode.
    expect(screenFacts(open, facts({ secFetchSite: "cross-site", secFetchMode: "navigate" }))).toMatchObject({ status: 403, reason: expect.stringContaining("may not change anything") });
  });

  it("refuses a path with a malformed percent-escape with 400 (Next would fail on it with a 500)", () => {
    for (const path of ["/agents/%E0%A4%A", "/api/handoffs/%", "/%zz"]) {
      expect(screenFacts(open, facts({ method: "GET", path }))).toMatchObject({ ok: false, status: 400, reason: expect.stringContaining("percent-escape") });
    }
    expect(screenFacts(open, facts({ method: "GET", path: "/agents/%E0%A4%A4" }))).toMatchObject({ ok: true });
  });

  it("refuses a request target that is no path, and more than one Host field, with 400 (RFC 9112, 3.2)", () => {
    for (const target of ["http://evil.example/api/handoffs", "https://127.0.0.1:3000/api/health", "*", "evil.example:443"]) {
      expect(requestTargetRefusal(target), target).toMatchObject({ ok: false, status: 400, reason: expect.stringContaining("must be a path") });
    }
    expect(repeatedFieldRefusal({ host: ["127.0.0.1", "evil.example"] })).toMatchObject({ ok: false, status: 400, reason: "the request has 2 Host fields; send exactly one" });
    expect(requestTargetRefusal("/api/handoffs?page=2")).toBeNull();
    expect(repeatedFieldRefusal({ host: ["127.0.0.1"] })).toBeNull();
    // HTTP/1.0 may omit Host; Node refuses an HTTP/1.1 request without one before any handler.
    expect(repeatedFieldRefusal({})).toBeNull();
  });

  it("refuses a path with a dot segment or a backslash with 400: Next would resolve it to another route than the one checked", () => {
    for (const path of ["/api/handoffs/x/../../session", "/api/handoffs/x/%2e%2e/%2E%2E/session", "/api/handoffs/x/.%2e/session", "/./settings/tokens", "/api/handoffs/x\\..\\..\\session"]) {
      expect(screenFacts(open, facts({ method: "GET", path }))).toMatchObject({ ok: false, status: 400, reason: expect.stringContaining(". or .. segment") });
    }
    // An encoded slash does not split a segment: Next hands `..%2F..%2Fetc` to the route as one (invalid) ID.
    for (const path of ["/api/handoffs/hof_a.b", "/agents/..%2F..%2Fetc", "/handoffs/x/export", "/.well-known/oauth-protected-resource", "/_next/static/chunks/a...b.js"]) {
      expect(screenFacts(open, facts({ method: "GET", path }))).toMatchObject({ ok: true });
    }
  });

  it("extends hosts and origins from the environment", () => {
    const named = guardPolicy({ BATON_ALLOWED_HOSTS: "baton.lan, Box:8443", BATON_ALLOWED_ORIGINS: "https://tools.lan/" });
    expect(screenFacts(named, facts({ host: "baton.lan:3000", origin: "http://baton.lan:3000" }))).toMatchObject({ ok: true });
    expect(screenFacts(named, facts({ host: "box:8443" }))).toMatchObject({ ok: true });
    expect(screenFacts(named, facts({ host: "box:9000" }))).toMatchObject({ status: 403 });
    expect(screenFacts(named, facts({ origin: "https://tools.lan" }))).toMatchObject({ ok: true });
    expect(screenFacts(named, facts({ origin: "http://tools.lan" }))).toMatchObject({ status: 403 });
  });

  it("caps bodies by route class (413), refuses bodies without a length (411) and non-JSON API bodies (415)", () => {
    expect(bodyClassOf("/api/import")).toBe("import");
    expect(bodyClassOf("/api/mcp")).toBe("mcp");
    expect(bodyClassOf("/api/agents/7/handoff")).toBe("document");
    expect(bodyClassOf("/agents/7")).toBe("document");
    expect(bodyClassOf("/api/handoffs")).toBe("default");
    for (const [path, limit] of [["/api/import", BODY_LIMITS.import], ["/api/mcp", BODY_LIMITS.mcp], ["/import", BODY_LIMITS.import], ["/api/agents/1/handoff", BODY_LIMITS.document], ["/api/handoffs", BODY_LIMITS.default], ["/handoffs/new", BODY_LIMITS.default]] as const) {
      expect(screenFacts(open, facts({ path, contentLength: String(limit) }))).toMatchObject({ ok: true, bodyLimit: limit });
      expect(screenFacts(open, facts({ path, contentLength: String(limit + 1) }))).toMatchObject({ ok: false, status: 413 });
    }
    for (const contentLength of ["-1", "1e9", "abc", "99999999999999999999"]) {
      expect(screenFacts(open, facts({ contentLength }))).toMatchObject({ ok: false, status: 413 });
    }
    expect(screenFacts(open, facts({ contentLength: null, transferEncoding: "chunked" }))).toMatchObject({ ok: false, status: 411 });
    for (const contentType of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", null]) {
      expect(screenFacts(open, facts({ contentType }))).toMatchObject({ ok: false, status: 415 });
    }
    expect(screenFacts(open, facts({ contentType: "application/json; charset=utf-8" }))).toMatchObject({ ok: true });
    expect(screenFacts(open, facts({ contentType: null, contentLength: "0" }))).toMatchObject({ ok: true });
    // Server actions post multipart or text/plain to page paths: not JSON endpoints.
    expect(screenFacts(open, facts({ path: "/handoffs/new", contentType: "text/plain;charset=UTF-8" }))).toMatchObject({ ok: true });
  });

  it("needs credentials beyond loopback, behind a proxy, and everywhere with BATON_AUTH=required", () => {
    expect(screenFacts(open, facts())).toMatchObject({ needsCredentials: false });
    expect(screenFacts(open, facts({ peerAddress: "::ffff:127.0.0.1" }))).toMatchObject({ needsCredentials: false });
    expect(screenFacts(open, facts({ peerAddress: "10.200.0.2", host: "localhost:3000" }))).toMatchObject({ needsCredentials: true });
    expect(screenFacts(open, facts({ forwarded: true }))).toMatchObject({ needsCredentials: true });
    expect(screenFacts(guardPolicy({ BATON_AUTH: "required" }), facts())).toMatchObject({ needsCredentials: true });
    // A proxy on this machine is a loopback peer too: the public name it passes on gives it away.
    const named = guardPolicy({ BATON_ALLOWED_HOSTS: "baton.example.com" });
    for (const host of ["localhost:3000", "127.0.0.1", "[::1]:3000"]) {
      expect(screenFacts(named, facts({ host })), host).toMatchObject({ ok: true, needsCredentials: false });
    }
    expect(screenFacts(named, facts({ host: "baton.example.com" }))).toMatchObject({ ok: true, needsCredentials: true });
    expect(screenFacts(named, facts({ host: "baton.example.com:443" }))).toMatchObject({ ok: true, needsCredentials: true });
    // Baton bound to another loopback address, asked by that address: still this machine.
    expect(screenFacts(named, facts({ host: "127.0.0.2:3000", peerAddress: "127.0.0.2", localAddress: "127.0.0.2" }))).toMatchObject({ ok: true, needsCredentials: false });
  });

  it("knows a proxy by any header one adds", () => {
    for (const name of ["forwarded", "via", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-forwarded-port", "x-real-ip", "true-client-ip", "cf-connecting-ip", "x-client-ip"]) {
      expect(carriesForwarding(["host", name]), name).toBe(true);
    }
    expect(carriesForwarding(["host", "content-type", "authorization", "cookie", "origin", "sec-fetch-site", "x-request-id"])).toBe(false);
  });

  it("knows loopback, public requests and what an agent token reaches", () => {
    expect(["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]", "::ffff:127.0.0.1"].every(isLoopbackAddress)).toBe(true);
    expect(["0.0.0.0", "::", "192.168.1.2", "::ffff:10.0.0.1", "example.com"].some(isLoopbackAddress)).toBe(false);
    expect(isPublicRequest("GET", "/sign-in")).toBe(true);
    expect(isPublicRequest("POST", "/sign-in")).toBe(false);
    expect(isPublicRequest("POST", "/api/session")).toBe(true);
    expect(isPublicRequest("GET", "/_next/static/chunks/a.js")).toBe(true);
    expect(isPublicRequest("GET", "/")).toBe(false);
    // A load balancer probes health without a token; it says only whether the database answers.
    expect(isPublicRequest("GET", "/api/health")).toBe(true);
    expect(isPublicRequest("POST", "/api/health")).toBe(false);
    expect(agentMayReach("/api/mcp", false)).toBe(true);
    expect(agentMayReach("/api/handoffs/hof_x/entries", false)).toBe(true);
    expect(agentMayReach("/api/agents", false)).toBe(true);
    expect(agentMayReach("/handoffs/hof_x/export", false)).toBe(true);
    expect(agentMayReach("/settings/tokens", false)).toBe(false);
    expect(agentMayReach("/", false)).toBe(false);
    expect(agentMayReach("/api/handoffsX", false)).toBe(false);
    expect(agentMayReach("/api/handoffs", true)).toBe(false);
  });
});

const raw = rawRequest;

const messageOf = (body: string) => {
  const parsed = JSON.parse(body) as { error: { message: string } };
  return parsed.error.message;
};

/**
 * Baton's HTTP server as `npm start` builds it (lib/server: Baton's names dropped at the socket,
 * the guard, the API router), with a probe where Next would serve pages: it answers the caller
 * it finds current, the value pages and server actions read (lib/caller.ts).
 */
async function guarded(policy: GuardPolicy) {
  const pages = async (request: http.IncomingMessage, response: http.ServerResponse) => {
    if (request.url === "/echo-body") {
      // As Next reads a server action's body: what reaches it must be the bytes sent.
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      response.writeHead(200, { "content-type": "application/octet-stream" });
      return void response.end(Buffer.concat(chunks));
    }
    let body = JSON.stringify(currentCaller());
    if (request.url === "/reenter") {
      // As Next renders a server action's redirect target: a fetch back to this server with the
      // request's headers, to which Next has added x-forwarded-*.
      const headers = { ...(request.headers as Record<string, string>), "x-forwarded-for": "127.0.0.1", "x-forwarded-host": String(request.headers.host) };
      body = await (await fetch(`${origin}/probe`, { headers, redirect: "manual" })).text();
    }
    response.writeHead(200, { "content-type": "application/json" });
    response.end(body);
  };
  const server = createBatonHttpServer({ policy, pages });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    host: new URL(origin).host,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const handoffCount = async () => (await read((tx) => tx.get<{ n: number }>("SELECT COUNT(*) AS n FROM handoffs")))!.n;
const createBody = JSON.stringify({ title: "from a door", content: "first" });

describe("the guard in front of the doors, on the open loopback desk", () => {
  let server: Awaited<ReturnType<typeof guarded>>;
  beforeAll(async () => (server = await guarded(guardPolicy({}))));
  afterAll(() => server.close());

  it("refuses a cross-site text/plain POST, a foreign Origin, a rebinding Host, a body over the cap and a wrong type; stores nothing", async () => {
    const before = await handoffCount();
    const json = { host: server.host, "content-type": "application/json" };
    const attempts = [
      [403, { host: server.host, "content-type": "text/plain", origin: "https://evil.example", "sec-fetch-site": "cross-site" }, createBody],
      [403, { ...json, origin: "https://evil.example" }, createBody],
      [403, { ...json, host: "rebind.evil.example:3000" }, createBody],
      [413, json, JSON.stringify({ title: "big", content: "x".repeat(BODY_LIMITS.default) })],
      [415, { host: server.host, "content-type": "text/plain" }, createBody],
      [411, { ...json, "transfer-encoding": "chunked" }, createBody],
    ] as const;
    for (const [status, headers, body] of attempts) {
      const response = await raw(server.origin, "POST", "/api/handoffs", headers, body);
      expect(response.status, JSON.stringify(headers)).toBe(status);
      expect(messageOf(response.body)).toMatch(/\w/);
    }
    expect(await handoffCount()).toBe(before);
    const read = await raw(server.origin, "GET", "/api/handoffs", { host: "rebind.evil.example:3000" });
    expect(read.status).toBe(403);
  });

  it("lets the same request through from the dashboard's own origin and from a script without an Origin", async () => {
    const before = await handoffCount();
    const own = await raw(server.origin, "POST", "/api/handoffs", { host: server.host, "content-type": "application/json", origin: server.origin, "sec-fetch-site": "same-origin" }, createBody);
    expect(own.status).toBe(201);
    const script = await raw(server.origin, "POST", "/api/handoffs", { host: server.host, "content-type": "application/json" }, createBody);
    expect(script.status).toBe(201);
    expect(await handoffCount()).toBe(before + 2);
  });

  it("takes a document up to the import's 1 MiB with its JSON envelope, not 128 KiB", async () => {
    const text = JSON.stringify({ x: "y".repeat(200 * 1024) });
    const mid = await raw(server.origin, "POST", "/api/import", { host: server.host, "content-type": "application/json" }, JSON.stringify({ text }));
    expect(mid.status).toBe(400);
    // A handoff.yaml just under 1 MiB whose lines and quotes JSON escapes: the body passes 1 MiB.
    const header = 'goal: "Import a document near the limit"\nstatus: in_progress\nnow: "Checking the body\'s limit"\ntimestamp: 2026-01-17T10:30:00Z\n';
    const comment = '# a "quoted" note\twith a tab\n';
    const document = header + comment.repeat(Math.floor((1024 * 1024 - header.length - 1) / comment.length));
    expect(Buffer.byteLength(document)).toBeLessThan(1024 * 1024);
    const body = JSON.stringify({ text: document, fileName: "handoff.yaml", dryRun: true });
    expect(Buffer.byteLength(body)).toBeGreaterThan(1024 * 1024);
    const nearLimit = await raw(server.origin, "POST", "/api/import", { host: server.host, "content-type": "application/json" }, body);
    expect(nearLimit.status).toBe(200);
    expect(JSON.parse(nearLimit.body)).toMatchObject({ ok: true, format: "handoff_yaml" });
    // Cyrillic under 1 MiB as Python's json.dumps sends it (\u043f for п, six bytes for two): three times as long.
    const note = "# заметка о переносе\n";
    const cyrillic = header + note.repeat(Math.floor((1024 * 1024 - header.length - 1) / Buffer.byteLength(note)));
    expect(Buffer.byteLength(cyrillic)).toBeLessThan(1024 * 1024);
    const escaped = JSON.stringify({ text: cyrillic, fileName: "handoff.yaml", dryRun: true }).replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
    expect(Buffer.byteLength(escaped)).toBeGreaterThan(2 * 1024 * 1024);
    const escapedNearLimit = await raw(server.origin, "POST", "/api/import", { host: server.host, "content-type": "application/json" }, escaped);
    expect(escapedNearLimit.status).toBe(200);
    expect(JSON.parse(escapedNearLimit.body)).toMatchObject({ ok: true, format: "handoff_yaml" });
    const huge = await raw(server.origin, "POST", "/api/import", { host: server.host, "content-type": "application/json" }, Buffer.alloc(BODY_LIMITS.import + 1, "a"));
    expect(huge.status).toBe(413);
  });

  it("answers MCP refusals in JSON-RPC's shape and lets the SDK client in", async () => {
    const refused = await raw(server.origin, "POST", "/api/mcp", { host: "evil.example", "content-type": "application/json" }, "{}");
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toMatchObject({ jsonrpc: "2.0", error: { code: -32000, message: expect.stringMatching(/^Host/) }, id: null });
    const client = await connectHttpClient(`${server.origin}/api/mcp`);
    expect((await client.listTools()).tools.length).toBeGreaterThanOrEqual(5);
    await client.close();
  });

  it("hands pages the caller as a value: the open desk, on this machine; Baton's header names from a client change nothing", async () => {
    const forged = { host: server.host, "x-baton-principal": "operator:mallory", "x-baton-act-as": "code", "x-baton-guard": "forged" };
    const seen = JSON.parse((await raw(server.origin, "GET", "/probe", forged)).body);
    expect(seen).toEqual({ who: { kind: "desk" }, local: true });
  });

  it("gives a page's re-entry (Next rendering a redirect target by fetching this server, x-forwarded-* added) the page's own caller; a guessed ticket gives nothing", async () => {
    const reentered = await raw(server.origin, "GET", "/reenter", { host: server.host });
    expect(JSON.parse(reentered.body)).toEqual({ who: { kind: "desk" }, local: true });
    const guessed = await raw(server.origin, "GET", "/probe", { host: server.host, "x-forwarded-for": "127.0.0.1", "x-baton-reentry": "A".repeat(32) });
    expect(guessed.status).toBe(303);
  });

  it("answers a Host whose port is out of range, and a path with dot segments, with 400 and the reason, on every route, without credentials", async () => {
    for (const [method, path] of [["POST", "/api/session"], ["GET", "/api/handoffs"], ["GET", "/"], ["POST", "/api/mcp"]] as const) {
      const response = await raw(server.origin, method, path, { host: "localhost:99999", "content-type": "application/json" }, method === "POST" ? "{}" : undefined);
      expect(response.status, path).toBe(400);
      expect(messageOf(response.body)).toMatch(/port 99999/);
    }
    expect((await raw(server.origin, "GET", "/api/handoffs", { host: "localhost:0" })).status).toBe(400);
    // Refused at the socket with the guard's reason, before the router's URL parser could fail on it.
    for (const path of ["/api/handoffs/x/../../health", "/api/handoffs/x/%2e%2e/session"]) {
      const dotted = await raw(server.origin, "GET", path, { host: server.host });
      expect(dotted.status, path).toBe(400);
      expect(messageOf(dotted.body)).toContain(". or .. segment");
    }
  });

  it("refuses a request carrying forwarding headers and no token with 401 and a line on BATON_AUTH=required", async () => {
    for (const name of ["x-forwarded-for", "forwarded", "x-real-ip", "x-forwarded-proto", "via"]) {
      const response = await raw(server.origin, "GET", "/api/handoffs", { host: server.host, [name]: "203.0.113.9" });
      expect(response.status).toBe(401);
      expect(response.headers["www-authenticate"]).toBe('Bearer realm="baton"');
      expect(messageOf(response.body)).toContain("BATON_AUTH=required");
    }
  });

  it("sends browser hardening on API answers and on pages", async () => {
    for (const path of ["/api/handoffs", "/probe"]) {
      const response = await raw(server.origin, "GET", path, { host: server.host });
      expect(response.headers["x-frame-options"], path).toBe("DENY");
      expect(response.headers["x-content-type-options"], path).toBe("nosniff");
      expect(response.headers["referrer-policy"], path).toBe("same-origin");
      expect(String(response.headers["content-security-policy"]), path).toContain("frame-ancestors 'none'");
    }
    const page = await raw(server.origin, "GET", "/probe", { host: server.host, "content-security-policy": "script-src *" });
    expect(String(page.headers["content-security-policy"])).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]{24}'/);
  });

  it("sends the same hardening on the guard's refusals and on what is refused before the router", async () => {
    const before = await handoffCount();
    const json = { host: server.host, "content-type": "application/json" };
    const refusals = [
      { what: "a rebinding Host", status: 403, answer: raw(server.origin, "GET", "/", { host: "evil.example" }) },
      { what: "forwarding headers without a token", status: 401, answer: raw(server.origin, "GET", "/api/handoffs", { host: server.host, "x-forwarded-for": "203.0.113.9" }) },
      { what: "a dot segment", status: 400, answer: raw(server.origin, "GET", "/api/handoffs/x/../../health", { host: server.host }) },
      { what: "a chunked body", status: 411, answer: raw(server.origin, "POST", "/api/handoffs", { ...json, "transfer-encoding": "chunked" }, createBody) },
      { what: "a body over the cap", status: 413, answer: raw(server.origin, "POST", "/api/handoffs", { ...json, "content-length": String(10 * 1024 * 1024) }) },
      { what: "a wrong content type", status: 415, answer: raw(server.origin, "POST", "/api/handoffs", { host: server.host, "content-type": "text/plain" }, createBody) },
      { what: "headers over 16 KiB", status: 431, answer: raw(server.origin, "GET", "/api/handoffs", { host: server.host, "x-long": "a".repeat(17 * 1024) }) },
      { what: "a method pages do not take", status: 405, answer: raw(server.origin, "TRACE", "/", { host: server.host }) },
    ];
    for (const refusal of refusals) {
      const response = await refusal.answer;
      expect(response.status, refusal.what).toBe(refusal.status);
      expect(response.headers["x-frame-options"], refusal.what).toBe("DENY");
      expect(response.headers["x-content-type-options"], refusal.what).toBe("nosniff");
      expect(response.headers["referrer-policy"], refusal.what).toBe("same-origin");
      expect(String(response.headers["content-security-policy"]), refusal.what).toBe("default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
    }
    expect(await handoffCount()).toBe(before);
  });

  it("refuses a server action body Next cannot decode with 400, and hands a decodable one over byte for byte", async () => {
    const form = (body: string) => ({ host: server.host, "content-type": "multipart/form-data; boundary=b0undary" , "content-length": String(Buffer.byteLength(body)) });
    const arguments_ = { host: server.host, "content-type": "text/plain;charset=UTF-8", "next-action": "605de61e444e6ee484bd51d5f902d208e9bdea96bc" };
    const wholeForm = '--b0undary\r\ncontent-disposition: form-data; name="title"\r\n\r\nA title, é\r\n--b0undary--\r\n';
    for (const [what, headers, body] of [
      ["arguments that are not JSON", arguments_, "garbage"],
      ["arguments cut short", arguments_, '[{"a":1'],
      ["a multipart form cut short", form(wholeForm.slice(0, 60)), wholeForm.slice(0, 60)],
    ] as const) {
      const refused = await raw(server.origin, "POST", "/echo-body", headers, body);
      expect(refused.status, what).toBe(400);
      expect(messageOf(refused.body), what).toMatch(/malformed or cut short|not JSON/);
    }
    for (const [what, headers, body] of [
      ["JSON arguments", arguments_, '["$K1",{"title":"é"}]'],
      ["a whole multipart form", form(wholeForm), wholeForm],
      ["a form of another type", { host: server.host, "content-type": "application/x-www-form-urlencoded" }, "title=a%20title"],
    ] as const) {
      const passed = await raw(server.origin, "POST", "/echo-body", headers, body);
      expect(passed.status, what).toBe(200);
      expect(passed.body, what).toBe(body);
    }
  });

  it("answers a method the dashboard's paths do not take (TRACE, PUT, DELETE, PROPFIND) with 405 and Allow, never rendering a page", async () => {
    for (const method of ["TRACE", "PUT", "DELETE", "PATCH", "PROPFIND"]) {
      const response = await raw(server.origin, method, "/handoffs/x", { host: server.host });
      expect(response.status, method).toBe(405);
      expect(response.headers.allow, method).toBe("GET, HEAD, POST");
      expect(messageOf(response.body)).toMatch(/answers GET, HEAD, POST/);
    }
    expect((await raw(server.origin, "GET", "/handoffs/x", { host: server.host })).status).toBe(200);
  });

  it("answers JSON 404 for unknown API and /.well-known/ paths, 405 with Allow for a wrong method", async () => {
    for (const path of ["/api/nothing", "/.well-known/openid-configuration", "/.well-known/x/y"]) {
      const response = await raw(server.origin, "GET", path, { host: server.host });
      expect(response.status, path).toBe(404);
      expect(response.headers["content-type"]).toMatch(/^application\/json/);
    }
    for (const path of ["/api/health/", "/api/handoffs/", "/api/events/"]) {
      const response = await raw(server.origin, "GET", path, { host: server.host });
      expect(response.status, path).toBe(404);
      expect(messageOf(response.body), path).toBe(`no API route ${path} (without the trailing slash: ${path.slice(0, -1)})`);
    }
    const wrong = await raw(server.origin, "DELETE", "/api/handoffs", { host: server.host });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe("GET, POST, HEAD, OPTIONS");
  });
});

describe("the guard with BATON_AUTH=required", () => {
  let server: Awaited<ReturnType<typeof guarded>>;
  let agent: string;
  let operator: string;
  beforeAll(async () => {
    server = await guarded(guardPolicy({ BATON_AUTH: "required" }));
    agent = (await createToken({ name: "guard-agent", role: "agent" })).token;
    operator = (await createToken({ name: "guard-operator", role: "operator" })).token;
  });
  afterAll(() => server.close());

  it("needs a token on every door: API and MCP get 401, pages redirect to the sign-in page", async () => {
    for (const [method, path] of [["GET", "/api/handoffs"], ["POST", "/api/mcp"], ["GET", "/api/import"]] as const) {
      const response = await raw(server.origin, method, path, { host: server.host, "content-type": "application/json" }, method === "POST" ? "{}" : undefined);
      expect(response.status).toBe(401);
      // The MCP endpoint's 401 also names its OAuth resource metadata (tests/oauth.test.ts).
      const resourceMetadata = path === "/api/mcp" ? `, resource_metadata="${server.origin}/.well-known/oauth-protected-resource"` : "";
      expect(response.headers["www-authenticate"]).toBe(`Bearer realm="baton"${resourceMetadata}`);
    }
    const page = await raw(server.origin, "GET", "/handoffs/hof_x?as=code", { host: server.host });
    expect(page.status).toBe(303);
    expect(page.headers.location).toBe(`/sign-in?next=${encodeURIComponent("/handoffs/hof_x?as=code")}`);
  });

  it("says invalid_token when a presented token fails, so a client knows to authorize again", async () => {
    for (const path of ["/api/handoffs", "/api/mcp"]) {
      const wrong = await raw(server.origin, "POST", path, { host: server.host, authorization: "Bearer baton_notarealtoken", "content-type": "application/json" }, "{}");
      expect(wrong.status).toBe(401);
      expect(wrong.headers["www-authenticate"]).toMatch(/^Bearer realm="baton", error="invalid_token", error_description="[^"]+"/);
    }
  });

  it("answers unknown /.well-known/ paths with a JSON 404, not the sign-in page", async () => {
    const response = await raw(server.origin, "GET", "/.well-known/openid-configuration", { host: server.host });
    expect(response.status).toBe(404);
    expect(JSON.parse(response.body)).toMatchObject({ error: { code: "NOT_FOUND" } });
  });

  it("lets an agent token use the API and MCP but not token management, pages or server actions", async () => {
    const bearer = { host: server.host, authorization: `Bearer ${agent}` };
    expect((await raw(server.origin, "GET", "/api/handoffs", bearer)).status).toBe(200);
    const client = await connectHttpClient(`${server.origin}/api/mcp`, { authorization: `Bearer ${agent}` });
    expect((await client.listTools()).tools.length).toBeGreaterThanOrEqual(5);
    await client.close();
    const tokens = await raw(server.origin, "GET", "/settings/tokens", bearer);
    expect(tokens.status).toBe(403);
    expect(messageOf(tokens.body)).toContain("agent role");
    const action = await raw(server.origin, "POST", "/api/handoffs", { ...bearer, "next-action": "abc", "content-type": "application/json" }, createBody);
    expect(action.status).toBe(403);
    // A path that climbs out of /api/handoffs/ would have let Next resolve it to another route.
    expect((await raw(server.origin, "POST", "/api/handoffs/x/../../session", { ...bearer, "content-type": "application/json" }, "{}")).status).toBe(400);
    expect((await raw(server.origin, "GET", "/api/handoffs/x/../../../settings/tokens", bearer)).status).toBe(400);
    const operatorPage = await raw(server.origin, "GET", "/settings/tokens", { host: server.host, authorization: `Bearer ${operator}` });
    expect(JSON.parse(operatorPage.body)).toMatchObject({ who: { kind: "token", name: "guard-operator", role: "operator" }, local: true });
  });

  it("stops honouring a revoked token on the next request", async () => {
    const { token } = await createToken({ name: "short-lived", role: "agent" });
    const bearer = { host: server.host, authorization: `Bearer ${token}` };
    expect((await raw(server.origin, "GET", "/api/handoffs", bearer)).status).toBe(200);
    await revokeToken({ name: "short-lived" });
    expect((await raw(server.origin, "GET", "/api/handoffs", bearer)).status).toBe(401);
  });

  it("signs an operator in with a cookie (HttpOnly, SameSite=Lax) and out again", async () => {
    const refused = await raw(server.origin, "POST", "/api/session", { host: server.host, "content-type": "application/json" }, JSON.stringify({ token: agent }));
    expect(refused.status).toBe(400);
    expect(messageOf(refused.body)).toContain("agent role");
    const signedIn = await raw(server.origin, "POST", "/api/session", { host: server.host, "content-type": "application/json" }, JSON.stringify({ token: operator }));
    expect(signedIn.status).toBe(200);
    const setCookie = String(signedIn.headers["set-cookie"]);
    expect(setCookie).toMatch(/^baton_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Expires=/);
    expect(setCookie).not.toContain("Secure");
    const cookie = setCookie.split(";")[0];
    const page = await raw(server.origin, "GET", "/probe", { host: server.host, cookie });
    expect(JSON.parse(page.body)).toMatchObject({ who: { kind: "session", name: "guard-operator", role: "operator" } });
    expect((await raw(server.origin, "DELETE", "/api/session", { host: server.host, cookie })).status).toBe(204);
    expect((await raw(server.origin, "GET", "/probe", { host: server.host, cookie })).status).toBe(303);
  });
});

describe("sessions and start-up", () => {
  it("ends a session when it expires or its token is revoked", async () => {
    const { token } = await createToken({ name: "session-op", role: "operator" });
    const { sessionId } = await signIn({ token });
    expect(await verifySession(sessionId)).toMatchObject({ name: "session-op", role: "operator" });
    await write((tx) => tx.run("UPDATE sessions SET expires_at = ?", [storedDate(new Date(Date.now() - 1000))]));
    expect(await verifySession(sessionId)).toBeNull();
    const second = await signIn({ token });
    await revokeToken({ name: "session-op" });
    expect(await verifySession(second.sessionId)).toBeNull();
  });

  it("refuses to start beyond loopback, or with BATON_AUTH=required, until a token exists", async () => {
    await write((tx) => tx.run("DELETE FROM access_tokens"));
    expect(await startRefusal("127.0.0.1", guardPolicy({}))).toBeNull();
    expect(await startRefusal("0.0.0.0", guardPolicy({}))).toMatch(/^baton: refusing to start: it would listen on 0\.0\.0\.0, beyond loopback, and no access token exists; create one with/);
    expect(await startRefusal("::1", guardPolicy({ BATON_AUTH: "required" }))).toMatch(/BATON_AUTH=required/);
    await createToken({ name: "lan", role: "agent" });
    expect(await startRefusal("0.0.0.0", guardPolicy({}))).toBeNull();
  });

  it("refuses to start with a BATON_TRUSTED_PROXIES that names no address, in one line; none and lists start", async () => {
    expect(await startRefusal("127.0.0.1", guardPolicy({ BATON_TRUSTED_PROXIES: "proxy.lan" }))).toMatch(/^baton: refusing to start: BATON_TRUSTED_PROXIES is not a list of addresses[^\n]*proxy\.lan$/);
    for (const value of ["none", "10.0.0.10", "10.0.0.0/8, loopback", "::1, uniquelocal"]) expect(await startRefusal("127.0.0.1", guardPolicy({ BATON_TRUSTED_PROXIES: value })), value).toBeNull();
    expect(guardPolicy({ BATON_TRUSTED_PROXIES: "none" }).trustProxy("127.0.0.1", 0)).toBe(false);
    expect(guardPolicy({}).trustProxy("127.0.0.1", 0)).toBe(true);
    expect(guardPolicy({}).trustProxy("10.0.0.10", 0)).toBe(false);
  });

  it("refuses bad token names and roles with field errors, and a duplicate name with a conflict", async () => {
    await expect(createToken({ name: "Bad Name!", role: "agent" })).rejects.toMatchObject({ code: "INVALID", fieldErrors: { name: [expect.any(String)] } });
    await expect(createToken({ name: "ok", role: "root" })).rejects.toMatchObject({ code: "INVALID", fieldErrors: { role: ['role must be "operator" or "agent"'] } });
    await createToken({ name: "twice", role: "agent" });
    await expect(createToken({ name: "twice", role: "agent" })).rejects.toMatchObject({ code: "CONFLICT" });
    await expect(revokeToken({ name: "never-made" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});

describe("the guard behind a reverse proxy on the same machine", () => {
  let server: Awaited<ReturnType<typeof guarded>>;
  beforeAll(async () => (server = await guarded(guardPolicy({ BATON_ALLOWED_HOSTS: "baton.example.com" }))));
  afterAll(() => server.close());

  it("keeps the open desk for loopback names only: the public name a proxy passes on needs a token, with or without forwarding headers", async () => {
    expect((await raw(server.origin, "GET", "/api/handoffs", { host: server.host })).status).toBe(200);
    const proxied: Record<string, string>[] = [
      { host: "baton.example.com" },
      { host: "baton.example.com", "x-forwarded-proto": "https" },
      { host: server.host, "x-forwarded-proto": "https" },
    ];
    for (const headers of proxied) {
      const response = await raw(server.origin, "GET", "/api/handoffs", headers);
      expect(response.status, JSON.stringify(headers)).toBe(401);
    }
    const named = await raw(server.origin, "GET", "/api/handoffs", { host: "baton.example.com" });
    expect(messageOf(named.body)).toContain('named "baton.example.com", not localhost');
    // Nothing is written either: a POST through the proxy without a token stores nothing.
    const before = await handoffCount();
    const post = await raw(server.origin, "POST", "/api/handoffs", { host: "baton.example.com", "content-type": "application/json" }, createBody);
    expect(post.status).toBe(401);
    expect(await handoffCount()).toBe(before);
    // A page asked through the proxy sends the browser to sign in instead of serving the desk.
    const page = await raw(server.origin, "GET", "/probe", { host: "baton.example.com" });
    expect(page.status).not.toBe(200);
  });

  it("serves the proxy's requests that carry a token, as a caller that is not on this machine", async () => {
    const { token } = await createToken({ name: "proxied-operator", role: "operator" });
    const response = await raw(server.origin, "GET", "/probe", { host: "baton.example.com", "x-forwarded-for": "203.0.113.9", authorization: `Bearer ${token}` });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ who: { kind: "token", name: "proxied-operator" }, local: false });
  });
});
