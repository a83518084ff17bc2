import { execFileSync, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToken, listTokens } from "../lib/auth";
import { REVOCATION_CHECK_MS } from "../lib/guard";
import { approveAuthorization } from "../lib/oauth";
import { startHttpDoor, stopHttpDoor } from "./support/crash-rig";

/**
 * Issue 27, point 5: revocation ends what is already open. Two instances of Baton's HTTP server,
 * each an OS process of its own on this test's database (a real PostgreSQL on the postgres
 * project), as a team runs them (BATON_AUTH=required, one public address). Streams are opened on
 * the second instance; the token or grant is revoked with the CLI (`baton token revoke`), and the
 * sign-in is ended through the first instance. Each stream must end within a second.
 */
const projectRoot = path.resolve(import.meta.dirname, "..");
const PUBLIC_URL = "http://baton.test";
const RESOURCE = `${PUBLIC_URL}/api/mcp`;
const WITHIN_MS = 1_000;

type Instance = { door: ChildProcess; origin: string };
let first: Instance;
let second: Instance;

beforeAll(async () => {
  // BATON_AUTH=required needs a token before the servers start.
  await createToken({ name: "revoke-desk", role: "operator" });
  const env = { BATON_AUTH: "required", BATON_PUBLIC_URL: PUBLIC_URL };
  [first, second] = await Promise.all([startHttpDoor(env), startHttpDoor(env)]);
}, 60_000);

afterAll(async () => {
  for (const instance of [first, second]) if (instance) await stopHttpDoor(instance.door, "SIGTERM");
});

/** An open response body, read until it ends: resolves with when it ended. */
async function whenEnded(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<number> {
  for (;;) {
    const { done } = await reader.read().catch(() => ({ done: true }));
    if (done) return Date.now();
  }
}

/** A live-update stream on `instance`, open and caught up (its `ready` event read): when it ended. */
async function openEvents(instance: Instance, headers: Record<string, string>): Promise<{ ended: Promise<number> }> {
  const response = await fetch(`${instance.origin}/api/events`, { headers });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  let text = "";
  while (!text.includes("event: ready")) {
    const { value, done } = await reader.read();
    expect(done).toBe(false);
    text += new TextDecoder().decode(value);
  }
  // Wrapped: an async function returning the promise itself would wait for it.
  return { ended: whenEnded(reader) };
}

/** An MCP session on `instance` and its GET stream, open: the session id and when the stream ended. */
async function openMcpStream(instance: Instance, headers: Record<string, string>): Promise<{ sessionId: string; ended: Promise<number> }> {
  const post = (body: unknown, sessionId?: string) =>
    fetch(`${instance.origin}/api/mcp`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", accept: "application/json, text/event-stream", ...(sessionId ? { "mcp-session-id": sessionId } : {}) },
      body: JSON.stringify(body),
    });
  const initialized = await post({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "revocation-test", version: "1" } } });
  expect(initialized.status).toBe(200);
  const sessionId = initialized.headers.get("mcp-session-id")!;
  expect(sessionId).toBeTruthy();
  expect((await post({ jsonrpc: "2.0", method: "notifications/initialized" }, sessionId)).status).toBe(202);
  const stream = await fetch(`${instance.origin}/api/mcp`, { headers: { ...headers, accept: "text/event-stream", "mcp-session-id": sessionId } });
  expect(stream.status).toBe(200);
  expect(stream.headers.get("content-type")).toMatch(/text\/event-stream/);
  return { sessionId, ended: whenEnded(stream.body!.getReader()) };
}

/** `baton token revoke NAME`, the operator's door for tokens and grants; when it returned. */
function revokeWithCli(name: string): number {
  execFileSync(process.execPath, [path.join(projectRoot, "bin", "baton.mjs"), "token", "revoke", name], { cwd: projectRoot, env: process.env, stdio: ["ignore", "pipe", "pipe"] });
  return Date.now();
}

/** A connector's grant as claude.ai gets one: registered, approved (the consent page's decision), code exchanged. */
async function connectorAccessToken(): Promise<string> {
  const redirectUri = "https://claude.ai/api/mcp/auth_callback";
  const registered = await fetch(`${first.origin}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "Claude", redirect_uris: [redirectUri], token_endpoint_auth_method: "none" }),
  });
  expect(registered.status).toBe(201);
  const clientId = ((await registered.json()) as { client_id: string }).client_id;
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const params = { client_id: clientId, redirect_uri: redirectUri, response_type: "code", code_challenge: challenge, code_challenge_method: "S256", resource: RESOURCE, state: "s" };
  const code = new URL(await approveAuthorization({ ...params, act_as: "chat" }, RESOURCE)).searchParams.get("code")!;
  const exchanged = await fetch(`${first.origin}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "authorization_code", code, code_verifier: verifier, client_id: clientId, redirect_uri: redirectUri, resource: RESOURCE }),
  });
  expect(exchanged.status).toBe(200);
  return ((await exchanged.json()) as { access_token: string }).access_token;
}

describe("revoking ends what is already open, on every instance", () => {
  it(`a revoked token's event stream and MCP GET stream on the other instance end within ${WITHIN_MS} ms; its requests are refused`, async () => {
    const { token } = await createToken({ name: "revoke-agent", role: "operator" });
    const bearer = { authorization: `Bearer ${token}` };
    const events = await openEvents(second, bearer);
    const mcp = await openMcpStream(second, bearer);
    // Another token's stream stays open: only the revoked credential's streams end.
    const { token: other } = await createToken({ name: "revoke-bystander", role: "operator" });
    const bystander = await openEvents(second, { authorization: `Bearer ${other}` });

    const revokedAt = revokeWithCli("revoke-agent");
    expect((await events.ended) - revokedAt).toBeLessThan(WITHIN_MS);
    expect((await mcp.ended) - revokedAt).toBeLessThan(WITHIN_MS);
    expect((await fetch(`${second.origin}/api/handoffs`, { headers: bearer })).status).toBe(401);
    const stillOpen = await Promise.race([bystander.ended.then(() => "ended"), new Promise((resolve) => setTimeout(() => resolve("open"), 4 * REVOCATION_CHECK_MS))]);
    expect(stillOpen).toBe("open");
  });

  it(`signing out on one instance ends the sign-in on the other: its stream within ${WITHIN_MS} ms, its requests at once`, async () => {
    const { token } = await createToken({ name: "revoke-operator", role: "operator" });
    const signedIn = await fetch(`${first.origin}/api/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token }) });
    expect(signedIn.status).toBe(200);
    const cookie = signedIn.headers.get("set-cookie")!.split(";")[0];
    expect((await fetch(`${second.origin}/api/handoffs`, { headers: { cookie } })).status).toBe(200);
    const events = await openEvents(second, { cookie });
    const mcp = await openMcpStream(second, { cookie });

    expect((await fetch(`${first.origin}/api/session`, { method: "DELETE", headers: { cookie } })).status).toBe(204);
    const signedOutAt = Date.now();
    expect((await fetch(`${second.origin}/api/handoffs`, { headers: { cookie } })).status).toBe(401);
    expect((await events.ended) - signedOutAt).toBeLessThan(WITHIN_MS);
    expect((await mcp.ended) - signedOutAt).toBeLessThan(WITHIN_MS);
  });

  it(`a revoked connector grant's streams end within ${WITHIN_MS} ms`, async () => {
    const accessToken = await connectorAccessToken();
    const bearer = { authorization: `Bearer ${accessToken}` };
    // A connector reaches MCP (and the thread API), not the desk's event stream: its GET stream is what stays open.
    const mcp = await openMcpStream(second, bearer);
    const grant = (await listTokens()).find((view) => view.connector !== null);
    expect(grant).toBeDefined();

    const revokedAt = revokeWithCli(grant!.name);
    expect((await mcp.ended) - revokedAt).toBeLessThan(WITHIN_MS);
    expect((await fetch(`${second.origin}/api/mcp`, { method: "POST", headers: { ...bearer, "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" })).status).toBe(401);
  });
});
