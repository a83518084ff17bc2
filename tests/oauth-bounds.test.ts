import { createHash } from "node:crypto";
import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { OAuthError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { AuthorizationView } from "../components/oauth/authorization-view";
import {
  MAX_REDIRECT_URI_LENGTH,
  MAX_REDIRECT_URIS,
  MAX_REGISTRATION_BYTES,
  MAX_UNUSED_CLIENTS,
  UNUSED_CLIENT_TTL_MS,
  approveAuthorization,
  checkAuthorizationRequest,
  findClient,
  registerClient,
  type AuthorizationParams,
} from "../lib/oauth";
import { sql, storedDate } from "../lib/sqlite";

/**
 * The bounds of anonymous OAuth: what a registration may store, how long an unused client lives,
 * and that the authorization endpoint sends a browser nowhere before the operator decides.
 */
const resource = "http://127.0.0.1:3000/api/mcp";
const callback = "http://127.0.0.1:5599/callback";
const db = () => sql().connection;
const clientCount = () => (db().prepare("SELECT count(*) AS n FROM oauth_clients").get() as { n: number }).n;

/** registerClient's refusal in RFC 7591's JSON shape, as the route answers it. */
function refusal(body: unknown): { error: string; error_description?: string } {
  try {
    registerClient(body);
  } catch (error) {
    if (error instanceof OAuthError) return error.toResponseObject();
    throw error;
  }
  throw new Error("the registration was accepted");
}

/** Backdates a client's registration by `ms`. */
const age = (clientId: string, ms: number) => db().prepare("UPDATE oauth_clients SET created_at = ? WHERE client_id = ?").run(storedDate(new Date(Date.now() - ms)), clientId);

const authorizationParams = (clientId: string, overrides: AuthorizationParams = {}): AuthorizationParams => ({
  client_id: clientId,
  redirect_uri: callback,
  response_type: "code",
  code_challenge: createHash("sha256").update("verifier").digest("base64url"),
  code_challenge_method: "S256",
  resource,
  state: "st-1",
  ...overrides,
});

describe("client registration is bounded in size", () => {
  it("accepts what real connectors send (mcp-remote's metadata, a few hundred bytes)", () => {
    const metadata = {
      redirect_uris: ["http://localhost:3334/oauth/callback"],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      client_name: "MCP CLI Proxy",
      client_uri: "https://github.com/modelcontextprotocol/mcp-cli",
      software_id: "2e6dc280-f3c3-4e01-99a7-8181dbd1d23d",
      software_version: "0.1.18",
    };
    expect(Buffer.byteLength(JSON.stringify(metadata))).toBeLessThan(MAX_REGISTRATION_BYTES / 4);
    expect(registerClient(metadata)).toMatchObject({ client_name: "MCP CLI Proxy", redirect_uris: metadata.redirect_uris });
  });

  it("refuses the reviewers' 19.5 KiB registration and each limit with RFC 7591's error and a description; stores nothing", () => {
    const before = clientCount();
    const longUri = (n: number) => `https://claude.ai/cb?${"p".repeat(n)}`;
    const cases: [string, unknown, string, RegExp][] = [
      ["ten 2,000-character redirect URIs", { client_name: "flood", redirect_uris: Array.from({ length: 10 }, (_, i) => `${longUri(1970)}${i}`) }, "invalid_client_metadata", /bytes of JSON; at most 4096/],
      ["a document over the byte cap", { client_name: "x", redirect_uris: [callback], software_statement: "s".repeat(MAX_REGISTRATION_BYTES) }, "invalid_client_metadata", /at most 4096 are accepted/],
      ["one redirect URI too many", { redirect_uris: Array.from({ length: MAX_REDIRECT_URIS + 1 }, (_, i) => `https://claude.ai/cb/${i}`) }, "invalid_redirect_uri", /6 given; at most 5 per client/],
      ["a redirect URI too long", { redirect_uris: [longUri(MAX_REDIRECT_URI_LENGTH)] }, "invalid_redirect_uri", /characters long; at most 512 are accepted/],
    ];
    for (const [what, body, error, description] of cases) {
      expect(refusal(body), what).toEqual({ error, error_description: expect.stringMatching(description) });
    }
    expect(clientCount()).toBe(before);
  });

  it("accepts the limits themselves", () => {
    const uris = Array.from({ length: MAX_REDIRECT_URIS }, (_, i) => `https://claude.ai/${String(i).padEnd(MAX_REDIRECT_URI_LENGTH - "https://claude.ai/".length, "x")}`);
    expect(uris.every((uri) => uri.length === MAX_REDIRECT_URI_LENGTH)).toBe(true);
    expect(registerClient({ client_name: "at the limits", redirect_uris: uris }).redirect_uris).toHaveLength(MAX_REDIRECT_URIS);
  });
});

describe("clients nobody approved expire", () => {
  it("deletes an unused client a day old at the next registration, and treats it as unknown before that", () => {
    const stale = registerClient({ client_name: "stale", redirect_uris: [callback] }).client_id;
    const fresh = registerClient({ client_name: "fresh", redirect_uris: [callback] }).client_id;
    age(stale, UNUSED_CLIENT_TTL_MS + 60_000);
    age(fresh, UNUSED_CLIENT_TTL_MS - 60_000);
    expect(findClient(stale)).toBeNull();
    expect(findClient(fresh)).toMatchObject({ name: "fresh" });
    expect(checkAuthorizationRequest(authorizationParams(stale), resource)).toEqual({ ok: false, message: expect.stringContaining("the connector must register again") });

    registerClient({ client_name: "next", redirect_uris: [callback] });
    const ids = (db().prepare("SELECT client_id FROM oauth_clients").all() as { client_id: string }[]).map((row) => row.client_id);
    expect(ids).not.toContain(stale);
    expect(ids).toContain(fresh);
  });

  it("keeps a client the operator approved, however old", () => {
    const approved = registerClient({ client_name: "Approved", redirect_uris: [callback] }).client_id;
    approveAuthorization({ ...authorizationParams(approved), act_as: "code" }, resource);
    age(approved, 30 * UNUSED_CLIENT_TTL_MS);
    registerClient({ client_name: "later", redirect_uris: [callback] });
    expect(findClient(approved)).toMatchObject({ name: "Approved" });
  });

  it(`keeps at most ${MAX_UNUSED_CLIENTS} unused clients: a registration beyond deletes the oldest unused, never an approved one`, () => {
    db().prepare("DELETE FROM oauth_clients WHERE client_id NOT IN (SELECT client_id FROM access_tokens WHERE client_id IS NOT NULL)").run();
    const approved = (db().prepare("SELECT count(*) AS n FROM oauth_clients").get() as { n: number }).n;
    expect(approved).toBeGreaterThan(0);
    const insert = db().prepare("INSERT INTO oauth_clients (client_id, name, redirect_uris, created_at) VALUES (?, 'flood', ?, ?)");
    const start = Date.now() - 60 * 60 * 1000;
    db().transaction(() => {
      for (let i = 0; i < MAX_UNUSED_CLIENTS; i++) insert.run(`flood-${i}`, JSON.stringify([callback]), storedDate(new Date(start + i * 1000)));
    })();
    const newest = registerClient({ client_name: "one more", redirect_uris: [callback] }).client_id;
    expect(clientCount()).toBe(MAX_UNUSED_CLIENTS + approved);
    expect(findClient("flood-0")).toBeNull();
    expect(findClient("flood-1")).not.toBeNull();
    expect(findClient(newest)).not.toBeNull();
  });
});

describe("/oauth/authorize sends the browser nowhere before the operator decides", () => {
  it("answers response_type=token for an anonymously registered client with the page's error state, not a redirect", () => {
    const { client_id: clientId } = registerClient({ client_name: "Anonymous", redirect_uris: ["https://evil.example/landing"] });
    const params = authorizationParams(clientId, { redirect_uri: "https://evil.example/landing", response_type: "token" });
    const check = checkAuthorizationRequest(params, resource);
    expect(check).toEqual({ ok: false, message: 'Anonymous asked for response_type "token"; Baton supports only "code" (authorization code with PKCE)' });
    const html = renderToString(AuthorizationView({ check, params }));
    expect(html).toContain("This connection request cannot be used");
    expect(html).toContain("you were not sent anywhere");
    expect(html).not.toContain("<form");
  });

  it("every problem with a known client and registered redirect URI is shown, none redirected", () => {
    const { client_id: clientId } = registerClient({ client_name: "Known", redirect_uris: [callback] });
    const problems: AuthorizationParams[] = [
      { response_type: "token" },
      { response_type: "code id_token" },
      { response_type: undefined },
      { code_challenge: undefined },
      { code_challenge_method: "plain" },
      { code_challenge: "short" },
      { resource: undefined },
      { resource: "https://other.example/api/mcp" },
      { state: "s".repeat(2001) },
      { client_id: "unknown" },
      { redirect_uri: "https://evil.example/cb" },
    ];
    for (const overrides of problems) {
      const check = checkAuthorizationRequest(authorizationParams(clientId, overrides), resource);
      expect(check, JSON.stringify(overrides).slice(0, 80)).toEqual({ ok: false, message: expect.any(String) });
    }
  });

  it("the consent page names the client, shows its full redirect URI and the side it asks to act as", () => {
    const redirectUri = "https://connector.example/oauth/callback/a-long-path?tenant=42";
    const { client_id: clientId } = registerClient({ client_name: "Claude", redirect_uris: [redirectUri] });
    const params = authorizationParams(clientId, { redirect_uri: redirectUri });
    const check = checkAuthorizationRequest(params, resource);
    expect(check.ok).toBe(true);
    const html = renderToString(AuthorizationView({ check, params })).replaceAll("<!-- -->", "");
    expect(html).toContain("<strong class=\"font-semibold\">Claude</strong> wants to act as <strong class=\"font-semibold\">chat</strong>");
    expect(html).toContain(`>${redirectUri}</p>`);
    expect(html).toContain(`name="redirect_uri" value="${redirectUri}"`);
  });
});
