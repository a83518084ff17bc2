import fs from "node:fs";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  exchangeAuthorization,
  extractWWWAuthenticateParams,
  refreshAuthorization,
  registerClient,
  startAuthorization,
} from "@modelcontextprotocol/sdk/client/auth.js";
import { OAuthMetadataSchema, type AuthorizationServerMetadata, type OAuthClientInformationFull } from "@modelcontextprotocol/sdk/shared/auth.js";
import { createToken, listTokens, revokeToken } from "../lib/auth";
import { hashSecret } from "../lib/auth/tokens";
import { REVOCATION_CHECK_MS } from "../lib/guard";
import { databaseFile, databaseUrl } from "../lib/config";
import { isPublicRequest } from "../lib/guard";
import { approveAuthorization, checkAuthorizationRequest, denyAuthorization, publicBaseUrl, type AuthorizationParams } from "../lib/oauth";
import { REGISTRATIONS_PER_ADDRESS_PER_MINUTE } from "../lib/oauth";
import { database, read, storedDate, write } from "../lib/database";
import { serveApi, type ApiServer } from "./support/api-server";
import { connectHttpClient } from "./support/mcp-clients";
import { rawRequest } from "./support/raw-http";

/**
 * The connector flow of the MCP authorization specification against Baton's real server (the
 * guard with BATON_AUTH=required, and the router's OAuth and MCP routes), over a socket, driven by
 * the MCP SDK's own client functions. The consent page's decision is the domain function its
 * server action calls.
 */
let api: ApiServer;
let origin: string;

beforeAll(async () => {
  api = await serveApi({ BATON_AUTH: "required" });
  origin = api.origin;
  // BATON_AUTH=required: the operator has a token, as `npm start` insists.
  await createToken({ name: "desk", role: "operator" });
});
afterAll(() => api.close());

const redirectUri = "http://127.0.0.1:5599/callback";
const resource = () => `${origin}/api/mcp`;

/** One request with exactly these headers (fetch sets Host itself). */
const raw = (method: string, path: string, headers: Record<string, string>, body?: string) => rawRequest(origin, method, path, headers, body);

const mcpCall = (token: string, init: { host?: string; query?: string } = {}) =>
  raw(
    "POST",
    `/api/mcp${init.query ?? ""}`,
    { host: init.host ?? new URL(origin).host, authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  );

/**
 * A registration POST from a loopback address of our choosing (127.0.0.0/8 is all loopback), so
 * the per-peer limit on registrations applies per address as it would to distinct machines.
 */
function registerFrom(peer: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; json: Record<string, unknown> }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: hostname, port, path: "/oauth/register", method: "POST", localAddress: peer, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers } },
      (response) => {
        let text = "";
        response.on("data", (chunk: Buffer) => (text += chunk.toString()));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(text) as Record<string, unknown> }));
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

const tokenPost = (fields: Record<string, string>) =>
  fetch(`${origin}/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields) });

let metadata: AuthorizationServerMetadata;
let client: OAuthClientInformationFull;

/** startAuthorization's URL as the consent page receives it, plus its verifier. */
async function authorizationRequest(state = "st-1"): Promise<{ params: AuthorizationParams; codeVerifier: string }> {
  const { authorizationUrl, codeVerifier } = await startAuthorization(origin, { metadata, clientInformation: client, redirectUrl: redirectUri, state, resource: new URL(resource()) });
  return { params: Object.fromEntries(authorizationUrl.searchParams) as AuthorizationParams, codeVerifier };
}

/** The operator approves on the consent page: the code from the redirect. */
async function approvedCode(actAs = "chat"): Promise<{ code: string; codeVerifier: string }> {
  const { params, codeVerifier } = await authorizationRequest();
  const target = new URL(await approveAuthorization({ ...params, act_as: actAs }, resource()));
  expect(`${target.origin}${target.pathname}`).toBe(redirectUri);
  expect(target.searchParams.get("state")).toBe("st-1");
  return { code: target.searchParams.get("code")!, codeVerifier };
}

const exchange = (code: string, codeVerifier: string) =>
  exchangeAuthorization(origin, { metadata, clientInformation: client, authorizationCode: code, codeVerifier, redirectUri, resource: new URL(resource()) });

const count = async (table: string) => (await read((tx) => tx.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`)))!.n;

/**
 * What the database keeps: SQLite's file and its write-ahead log as bytes; on PostgreSQL, every
 * column of the OAuth tables as text (its files are the server's).
 */
async function storedBytes(): Promise<Buffer> {
  if (database().engine === "sqlite") {
    const file = databaseFile(databaseUrl());
    return Buffer.concat([fs.readFileSync(file), ...(fs.existsSync(`${file}-wal`) ? [fs.readFileSync(`${file}-wal`)] : [])]);
  }
  const rows = await read(async (tx) => [
    ...(await tx.all("SELECT * FROM oauth_codes")),
    ...(await tx.all("SELECT * FROM oauth_tokens")),
    ...(await tx.all("SELECT * FROM access_tokens")),
  ]);
  return Buffer.from(JSON.stringify(rows));
}

describe("discovery and registration", () => {
  it("answers an unauthenticated MCP call with 401 naming the resource metadata; the metadata leads to the authorization server", async () => {
    const refused = await fetch(`${origin}/api/mcp`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(refused.status).toBe(401);
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(refused);
    expect(resourceMetadataUrl?.href).toBe(`${origin}/.well-known/oauth-protected-resource`);

    const resourceMetadata = await discoverOAuthProtectedResourceMetadata(`${origin}/api/mcp`, { resourceMetadataUrl });
    expect(resourceMetadata).toMatchObject({ resource: resource(), authorization_servers: [origin] });
    // The path-suffixed form, which the SDK tries first without a hint, says the same.
    expect(await discoverOAuthProtectedResourceMetadata(`${origin}/api/mcp`)).toEqual(resourceMetadata);

    metadata = (await discoverAuthorizationServerMetadata(origin))!;
    expect(OAuthMetadataSchema.parse(metadata)).toMatchObject({
      issuer: origin,
      authorization_endpoint: `${origin}/oauth/authorize`,
      token_endpoint: `${origin}/oauth/token`,
      registration_endpoint: `${origin}/oauth/register`,
      revocation_endpoint: `${origin}/oauth/revoke`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
    });
  });

  it("serves metadata, registration and the token endpoint without credentials, never the consent page", () => {
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/api/mcp", "/.well-known/oauth-authorization-server"]) {
      expect(isPublicRequest("GET", path)).toBe(true);
      expect(isPublicRequest("POST", path)).toBe(false);
    }
    for (const path of ["/oauth/register", "/oauth/token", "/oauth/revoke"]) {
      expect(isPublicRequest("POST", path)).toBe(true);
      expect(isPublicRequest("GET", path)).toBe(false);
    }
    expect(isPublicRequest("GET", "/oauth/authorize")).toBe(false);
    expect(isPublicRequest("POST", "/oauth/authorize")).toBe(false);
  });

  it("takes BATON_PUBLIC_URL as the public origin behind a proxy, else the Host", () => {
    expect(publicBaseUrl("127.0.0.1:3000", {})).toBe("http://127.0.0.1:3000");
    expect(publicBaseUrl("127.0.0.1:3000", { BATON_PUBLIC_URL: "https://baton.example.com/" })).toBe("https://baton.example.com");
  });

  it("registers a public client (201, client_id) through the SDK's registerClient", async () => {
    client = await registerClient(origin, { metadata, clientMetadata: { client_name: "Claude", redirect_uris: [redirectUri], token_endpoint_auth_method: "none" } });
    expect(client.client_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(client).toMatchObject({ client_name: "Claude", redirect_uris: [redirectUri], token_endpoint_auth_method: "none" });
  });

  it("refuses bad registrations with 400 in RFC 7591's shape and stores nothing", async () => {
    const before = await count("oauth_clients");
    const cases: [string, string][] = [
      ["not json", "invalid_client_metadata"],
      ["[]", "invalid_client_metadata"],
      [JSON.stringify({ client_name: "x" }), "invalid_client_metadata"],
      [JSON.stringify({ redirect_uris: [] }), "invalid_redirect_uri"],
      [JSON.stringify({ redirect_uris: ["not a url"] }), "invalid_client_metadata"],
      [JSON.stringify({ redirect_uris: ["http://evil.example/cb"] }), "invalid_redirect_uri"],
      [JSON.stringify({ redirect_uris: ["javascript:alert(1)"] }), "invalid_client_metadata"],
      [JSON.stringify({ redirect_uris: ["https://claude.ai/cb#frag"] }), "invalid_redirect_uri"],
      [JSON.stringify({ redirect_uris: ["https://claude.ai/cb"], grant_types: ["client_credentials"] }), "invalid_client_metadata"],
      [`${"[".repeat(100)}${"]".repeat(100)}`, "invalid_client_metadata"],
    ];
    // Each from its own address: more than one address may register in a minute.
    for (const [index, [body, error]] of cases.entries()) {
      const response = await registerFrom(`127.0.1.${index + 1}`, body);
      expect(response.status, body).toBe(400);
      expect(response.json, body).toMatchObject({ error, error_description: expect.any(String) });
    }
    // RFC 7591 §3.1: the metadata is sent as application/json; a form's or plain text's body is no registration.
    const valid = JSON.stringify({ client_name: "Typed", redirect_uris: [redirectUri] });
    for (const [index, type] of ["text/plain", "application/x-www-form-urlencoded", ""].entries()) {
      const response = await registerFrom(`127.0.1.${cases.length + index + 1}`, valid, { "content-type": type });
      expect(response.status, type).toBe(400);
      expect(response.json, type).toMatchObject({ error: "invalid_client_metadata", error_description: expect.stringContaining("application/json") });
    }
    expect(await count("oauth_clients")).toBe(before);
  });

  it(`limits registrations to ${REGISTRATIONS_PER_ADDRESS_PER_MINUTE} a minute per peer address (429 slow_down, nothing stored); other addresses still register`, async () => {
    const body = JSON.stringify({ client_name: "Flood", redirect_uris: [redirectUri], token_endpoint_auth_method: "none" });
    for (let index = 0; index < REGISTRATIONS_PER_ADDRESS_PER_MINUTE; index++) expect((await registerFrom("127.0.2.1", body)).status).toBe(201);
    const before = await count("oauth_clients");
    const refused = await registerFrom("127.0.2.1", body);
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ error: "slow_down", error_description: expect.stringContaining(`at most ${REGISTRATIONS_PER_ADDRESS_PER_MINUTE}`) });
    expect(await count("oauth_clients")).toBe(before);
    expect((await registerFrom("127.0.2.2", body)).status).toBe(201);
  });

  it("cuts a long client name between characters, never inside an emoji's surrogate pair", async () => {
    const exact = `${"a".repeat(99)}\u{1F680}`;
    const long = `${"b".repeat(99)}\u{1F680}\u{1F680} and more`;
    for (const [index, [name, stored]] of [
      [exact, exact],
      [long, `${"b".repeat(99)}\u{1F680}`],
    ].entries()) {
      const response = await registerFrom(`127.0.4.${index + 1}`, JSON.stringify({ client_name: name, redirect_uris: [redirectUri] }));
      expect(response.status, name).toBe(201);
      expect(response.json.client_name).toBe(stored);
    }
  });

  it("counts an IPv6 client by its /64, the block one host or home is handed: fresh addresses in it share one limit", async () => {
    const body = JSON.stringify({ client_name: "Rotating", redirect_uris: [redirectUri], token_endpoint_auth_method: "none" });
    // Through the trusted proxy on this machine (the default BATON_TRUSTED_PROXIES), as a tunnel forwards them.
    const from = (address: string) => registerFrom("127.0.3.1", body, { "x-forwarded-for": address });
    for (let index = 1; index <= REGISTRATIONS_PER_ADDRESS_PER_MINUTE; index++) expect((await from(`2001:db8:1:2::${index.toString(16)}`)).status).toBe(201);
    const before = await count("oauth_clients");
    expect((await from("2001:db8:1:2:ffff:ffff:ffff:fffe")).status).toBe(429);
    expect(await count("oauth_clients")).toBe(before);
    expect((await from("2001:db8:1:3::1")).status).toBe(201);
  });
});

describe("authorization (the consent page's checks and decision)", () => {
  it("never redirects for an unknown client or an unregistered redirect_uri, at the page or at Approve", async () => {
    const { params } = await authorizationRequest();
    const unknown = await checkAuthorizationRequest({ ...params, client_id: "nope" }, resource());
    expect(unknown).toEqual({ ok: false, message: expect.stringContaining("no client is registered") });
    const badRedirect = await checkAuthorizationRequest({ ...params, redirect_uri: "https://evil.example/cb" }, resource());
    expect(badRedirect).toEqual({ ok: false, message: expect.stringContaining("is not one Claude registered") });
    const codes = await count("oauth_codes");
    await expect(approveAuthorization({ ...params, redirect_uri: "https://evil.example/cb" }, resource())).rejects.toThrow(/is not one Claude registered/);
    await expect(denyAuthorization({ ...params, redirect_uri: "http://127.0.0.1:5599/other" }, resource())).rejects.toThrow(/is not one Claude registered/);
    expect(await count("oauth_codes")).toBe(codes);
  });

  it("shows later problems on the page too and redirects nowhere until the operator decides; Deny sends access_denied", async () => {
    const { params } = await authorizationRequest();
    const cases: [AuthorizationParams, RegExp][] = [
      [{ ...params, response_type: "token" }, /asked for response_type "token"; Baton supports only "code"/],
      [{ ...params, response_type: undefined }, /asked for no response_type/],
      [{ ...params, code_challenge: undefined }, /sent no code_challenge/],
      [{ ...params, code_challenge_method: "plain" }, /code_challenge_method "S256"/],
      [{ ...params, resource: undefined }, /named no resource/],
      [{ ...params, resource: "https://other.example/api/mcp" }, /this server's MCP endpoint is/],
    ];
    const codes = await count("oauth_codes");
    for (const [bad, message] of cases) {
      expect(await checkAuthorizationRequest(bad, resource())).toEqual({ ok: false, message: expect.stringMatching(message) });
      // A decision on a request the page would not offer is refused, not sent to the client either.
      await expect(approveAuthorization({ ...bad, act_as: "chat" }, resource())).rejects.toThrow(message);
      await expect(denyAuthorization(bad, resource())).rejects.toThrow(message);
    }
    expect(await count("oauth_codes")).toBe(codes);
    const denied = new URL(await denyAuthorization(params, resource()));
    expect(`${denied.origin}${denied.pathname}`).toBe(redirectUri);
    expect(denied.searchParams.get("error")).toBe("access_denied");
    expect(denied.searchParams.get("state")).toBe("st-1");
    expect(denied.searchParams.get("code")).toBeNull();
  });
});

describe("tokens", () => {
  it("runs the whole flow: code → tokens → an MCP call as the granted side → refresh; the grant is in the token list", async () => {
    const { code, codeVerifier } = await approvedCode("chat");
    const tokens = await exchange(code, codeVerifier);
    expect(tokens).toMatchObject({ token_type: "Bearer", expires_in: 3600 });
    expect(tokens.access_token).toMatch(/^batonat_[A-Za-z0-9_-]{43}$/);
    expect(tokens.refresh_token).toMatch(/^batonrt_[A-Za-z0-9_-]{43}$/);

    const mcp = await connectHttpClient(`${origin}/api/mcp`, { authorization: `Bearer ${tokens.access_token}` });
    const created = await mcp.callTool({ name: "create_handoff", arguments: { title: "from claude.ai", content: "decided: ship it" } });
    await mcp.close();
    expect(created.isError).toBeFalsy();
    expect((created.structuredContent as { entries: { from_client: string }[] }).entries[0].from_client).toBe("chat");

    const grant = (await listTokens()).find((token) => token.connector);
    expect(grant).toMatchObject({ name: "claude-connector-chat", role: "agent", connector: { client: "Claude", actAs: "chat", label: "Claude (connector, acts as chat)" } });
    expect(grant!.lastUsedAt).not.toBeNull();

    const refreshed = await refreshAuthorization(origin, { metadata, clientInformation: client, refreshToken: tokens.refresh_token!, resource: new URL(resource()) });
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect((await mcpCall(refreshed.access_token)).status).toBe(200);
    // The old access token lives out its hour; the old refresh token is spent.
    const reused = await tokenPost({ grant_type: "refresh_token", refresh_token: tokens.refresh_token!, client_id: client.client_id });
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ error: "invalid_grant", error_description: expect.stringContaining("already used") });
    // Replaying a rotated refresh token revokes what the grant holds.
    expect((await mcpCall(refreshed.access_token)).status).toBe(401);
  });

  it("a grant approved as code acts as code, and only as code: ?as=chat is refused (the consent page said it would act as code)", async () => {
    const { code, codeVerifier } = await approvedCode("code");
    const tokens = await exchange(code, codeVerifier);
    const mcp = await connectHttpClient(`${origin}/api/mcp`, { authorization: `Bearer ${tokens.access_token}` });
    const created = await mcp.callTool({ name: "create_handoff", arguments: { title: "from the code grant", content: "x" } });
    await mcp.close();
    expect((created.structuredContent as { entries: { from_client: string }[] }).entries[0].from_client).toBe("code");
    const handoffs = await count("handoffs");
    await expect(connectHttpClient(`${origin}/api/mcp?as=chat`, { authorization: `Bearer ${tokens.access_token}` })).rejects.toThrow(/approved to act as code, not chat/);
    expect(await count("handoffs")).toBe(handoffs);
    expect((await listTokens()).map((token) => token.name)).toContain("claude-connector-code");
  });

  it("a connector is not the operator: naming a tmux target is a tool error and registers nothing", async () => {
    const { code, codeVerifier } = await approvedCode("code");
    const tokens = await exchange(code, codeVerifier);
    const agents = await count("agents");
    const mcp = await connectHttpClient(`${origin}/api/mcp`, { authorization: `Bearer ${tokens.access_token}` });
    const typed = await mcp.callTool({ name: "register_agent", arguments: { persona: "connector-dev", tmux_target: "work:1.0" } });
    await mcp.close();
    expect(typed.isError).toBe(true);
    expect((typed.content as { text: string }[])[0].text).toMatch(/connector "claude-connector-code" may not name a tmux target/);
    expect(await count("agents")).toBe(agents);
  });

  it("refuses a wrong PKCE verifier, a wrong redirect_uri, client or resource with invalid_grant / invalid_target; the code still works after", async () => {
    const { code, codeVerifier } = await approvedCode();
    const base = { grant_type: "authorization_code", code, code_verifier: codeVerifier, redirect_uri: redirectUri, client_id: client.client_id, resource: resource() };
    const cases: [Record<string, string>, string][] = [
      [{ ...base, code_verifier: "A".repeat(43) }, "invalid_grant"],
      [{ ...base, code_verifier: "short" }, "invalid_grant"],
      [{ ...base, redirect_uri: "http://127.0.0.1:5599/other" }, "invalid_grant"],
      [{ ...base, client_id: "someone-else" }, "invalid_grant"],
      [{ ...base, resource: "https://other.example/api/mcp" }, "invalid_target"],
      [{ ...base, code: "batonac_unknown" }, "invalid_grant"],
      [{ ...base, grant_type: "password" }, "unsupported_grant_type"],
      [{ grant_type: "authorization_code", code }, "invalid_request"],
    ];
    for (const [fields, error] of cases) {
      const response = await tokenPost(fields);
      expect(response.status, JSON.stringify(fields)).toBe(400);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(await response.json()).toMatchObject({ error });
    }
    const json = await fetch(`${origin}/oauth/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(base) });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: "invalid_request" });
    expect((await exchange(code, codeVerifier)).access_token).toMatch(/^batonat_/);
  });

  it("refuses a token or revocation request that gives a parameter twice (RFC 6749 §3.2), issuing and revoking nothing", async () => {
    const { code, codeVerifier } = await approvedCode();
    const form = (pairs: [string, string][]) => new URLSearchParams(pairs);
    const post = (path: string, pairs: [string, string][]) =>
      fetch(`${origin}${path}`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form(pairs) });
    const exchangeFields: [string, string][] = [
      ["grant_type", "authorization_code"],
      ["code", code],
      ["code_verifier", codeVerifier],
      ["redirect_uri", redirectUri],
      ["client_id", client.client_id],
    ];
    for (const [extra, error] of [
      [["client_id", "someone-else"], "invalid_request"],
      [["grant_type", "refresh_token"], "invalid_request"],
      [["code_verifier", "A".repeat(43)], "invalid_request"],
      [["resource", resource()], "invalid_target"],
      [["resource", "https://other.example/api/mcp"], "invalid_target"],
    ] as [[string, string], string][]) {
      const pairs: [string, string][] = extra[0] === "resource" ? [...exchangeFields, ["resource", resource()], extra] : [...exchangeFields, extra];
      const refused = await post("/oauth/token", pairs);
      expect(refused.status, extra.join("=")).toBe(400);
      expect(await refused.json(), extra.join("=")).toMatchObject({ error, error_description: expect.stringContaining(`${extra[0]} is given more than once`) });
    }
    // Nothing was spent: the code still works once, as sent.
    const tokens = await exchange(code, codeVerifier);
    const revokeTwice = await post("/oauth/revoke", [
      ["token", tokens.access_token],
      ["token", "batonat_other"],
      ["client_id", client.client_id],
    ]);
    expect(revokeTwice.status).toBe(400);
    expect(await revokeTwice.json()).toMatchObject({ error: "invalid_request", error_description: expect.stringContaining("token is given more than once") });
    expect((await mcpCall(tokens.access_token)).status).toBe(200);
  });

  it("a reused code is refused and the tokens issued from it are revoked", async () => {
    const { code, codeVerifier } = await approvedCode();
    const tokens = await exchange(code, codeVerifier);
    expect((await mcpCall(tokens.access_token)).status).toBe(200);
    await expect(exchange(code, codeVerifier)).rejects.toThrow(/already used/);
    expect((await mcpCall(tokens.access_token)).status).toBe(401);
    const refresh = await tokenPost({ grant_type: "refresh_token", refresh_token: tokens.refresh_token!, client_id: client.client_id });
    expect(await refresh.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("refuses an expired code and an expired access token", async () => {
    const { code, codeVerifier } = await approvedCode();
    await write((tx) => tx.run("UPDATE oauth_codes SET expires_at = ?", [storedDate(new Date(Date.now() - 1000))]));
    await expect(exchange(code, codeVerifier)).rejects.toThrow(/expired/);

    const fresh = await approvedCode();
    const tokens = await exchange(fresh.code, fresh.codeVerifier);
    expect((await mcpCall(tokens.access_token)).status).toBe(200);
    await write((tx) => tx.run("UPDATE oauth_tokens SET expires_at = ? WHERE kind = 'access'", [storedDate(new Date(Date.now() - 1000))]));
    const expired = await mcpCall(tokens.access_token);
    expect(expired.status).toBe(401);
    expect(expired.headers["www-authenticate"]).toContain(`resource_metadata="${origin}/.well-known/oauth-protected-resource"`);
    // The refresh token still works: that is what it is for.
    const refreshed = await refreshAuthorization(origin, { metadata, clientInformation: client, refreshToken: tokens.refresh_token!, resource: new URL(resource()) });
    expect((await mcpCall(refreshed.access_token)).status).toBe(200);
  });

  it("refuses a token bound to another resource: another Host name for this server, or another server", async () => {
    const { code, codeVerifier } = await approvedCode();
    const tokens = await exchange(code, codeVerifier);
    expect((await mcpCall(tokens.access_token)).status).toBe(200);
    // The same server reached as localhost is another resource URL.
    expect((await mcpCall(tokens.access_token, { host: `localhost:${new URL(origin).port}` })).status).toBe(401);
    await write(async (tx) => {
      const { token_hash: hash } = (await tx.get<{ token_hash: string }>("SELECT token_hash FROM oauth_tokens WHERE kind = 'access' ORDER BY created_at DESC LIMIT 1"))!;
      await tx.run("UPDATE oauth_tokens SET resource = ? WHERE token_hash = ?", ["https://other.example/api/mcp", hash]);
    });
    expect((await mcpCall(tokens.access_token)).status).toBe(401);
  });

  it("revoking the grant in the token list ends its access and refresh tokens on the next request", async () => {
    const { code, codeVerifier } = await approvedCode();
    const tokens = await exchange(code, codeVerifier);
    expect((await mcpCall(tokens.access_token)).status).toBe(200);
    await revokeToken({ name: "claude-connector-chat" });
    expect((await mcpCall(tokens.access_token)).status).toBe(401);
    const refresh = await tokenPost({ grant_type: "refresh_token", refresh_token: tokens.refresh_token!, client_id: client.client_id });
    expect(refresh.status).toBe(400);
    expect(await refresh.json()).toMatchObject({ error: "invalid_grant" });
    expect((await listTokens()).map((token) => token.name)).not.toContain("claude-connector-chat");
    // Approving again creates a new grant under the same name.
    const again = await approvedCode();
    expect((await mcpCall((await exchange(again.code, again.codeVerifier)).access_token)).status).toBe(200);
  });

  it("revokes a token at the revocation endpoint (RFC 7009): only the client's own; unknown tokens answer 200 too", async () => {
    const { code, codeVerifier } = await approvedCode();
    const tokens = await exchange(code, codeVerifier);
    const revoke = (fields: Record<string, string>) =>
      fetch(`${origin}/oauth/revoke`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields) });
    expect((await revoke({ token: tokens.access_token, client_id: "someone-else" })).status).toBe(200);
    expect((await mcpCall(tokens.access_token)).status).toBe(200);
    expect((await revoke({ token: tokens.access_token, client_id: client.client_id })).status).toBe(200);
    expect((await mcpCall(tokens.access_token)).status).toBe(401);
    expect((await revoke({ token: tokens.refresh_token!, client_id: client.client_id, token_type_hint: "refresh_token" })).status).toBe(200);
    const refresh = await tokenPost({ grant_type: "refresh_token", refresh_token: tokens.refresh_token!, client_id: client.client_id });
    expect(await refresh.json()).toMatchObject({ error: "invalid_grant" });
    expect((await revoke({ token: "batonat_unknown", client_id: client.client_id })).status).toBe(200);
    const missing = await revoke({ client_id: client.client_id });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: "invalid_request" });
  });

  it("revoking a refresh token at the revocation endpoint ends the access tokens of its grant too (RFC 7009 §2.1)", async () => {
    const { code, codeVerifier } = await approvedCode();
    const tokens = await exchange(code, codeVerifier);
    expect((await mcpCall(tokens.access_token)).status).toBe(200);
    const revoked = await fetch(`${origin}/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: tokens.refresh_token!, client_id: client.client_id }),
    });
    expect(revoked.status).toBe(200);
    expect((await mcpCall(tokens.access_token)).status).toBe(401);
  });

  it("an MCP session outlives the access token that opened it once the connector refreshed, and ends when the token it now uses is revoked", async () => {
    const { code, codeVerifier } = await approvedCode();
    const first = await exchange(code, codeVerifier);
    const session = (accessToken: string, sessionId?: string, body: unknown = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }) =>
      fetch(`${origin}/api/mcp`, {
        method: "POST",
        headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json", accept: "application/json, text/event-stream", ...(sessionId && { "mcp-session-id": sessionId }) },
        body: JSON.stringify(body),
      });
    const opened = await session(first.access_token, undefined, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "claude.ai", version: "1" } },
    });
    expect(opened.status).toBe(200);
    const sessionId = opened.headers.get("mcp-session-id")!;
    // Claude refreshes before the hour is up and goes on in the same session, listening on its GET stream.
    const second = await refreshAuthorization(origin, { metadata, clientInformation: client, refreshToken: first.refresh_token!, resource: new URL(resource()) });
    expect((await session(second.access_token, sessionId)).status).toBe(200);
    const stream = await fetch(`${origin}/api/mcp`, { headers: { authorization: `Bearer ${second.access_token}`, accept: "text/event-stream", "mcp-session-id": sessionId } });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    let ended = false;
    const whenEnded = (async () => {
      while (!(await reader.read().catch(() => ({ done: true }))).done);
      ended = true;
    })();

    // The first access token's hour ends: the session was the connector's, which holds a good token.
    await write((tx) => tx.run("UPDATE oauth_tokens SET expires_at = ? WHERE token_hash = ?", [storedDate(new Date(Date.now() - 1000)), hashSecret(first.access_token)]));
    await new Promise((resolve) => setTimeout(resolve, 4 * REVOCATION_CHECK_MS));
    expect((await session(second.access_token, sessionId)).status).toBe(200);
    expect(ended).toBe(false);

    // The token it goes on with is revoked: what it holds open ends too.
    const revoked = await fetch(`${origin}/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: second.access_token, client_id: client.client_id }),
    });
    expect(revoked.status).toBe(200);
    await whenEnded;
    const third = await refreshAuthorization(origin, { metadata, clientInformation: client, refreshToken: second.refresh_token!, resource: new URL(resource()) });
    expect((await session(third.access_token, sessionId)).status).toBe(404);
  });

  it("a refresh token is no bearer, and an agent's grant cannot reach pages or token management", async () => {
    const { code, codeVerifier } = await approvedCode();
    const tokens = await exchange(code, codeVerifier);
    expect((await mcpCall(tokens.refresh_token!)).status).toBe(401);
    const page = await raw("GET", "/settings/tokens", { host: new URL(origin).host, authorization: `Bearer ${tokens.access_token}` });
    expect(page.status).toBe(403);
  });

  it("stores codes and tokens only as hashes", async () => {
    const { code, codeVerifier } = await approvedCode();
    const tokens = await exchange(code, codeVerifier);
    const stored = await storedBytes();
    for (const secret of [code, tokens.access_token, tokens.refresh_token!]) expect(stored.includes(secret)).toBe(false);
    const { createHash } = await import("node:crypto");
    expect(stored.includes(createHash("sha256").update(tokens.access_token).digest("hex"))).toBe(true);
  });
});
