import { createHash, randomBytes } from "node:crypto";
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
  tokenRequest,
  verifyAccessToken,
  type AuthorizationParams,
} from "../lib/oauth";
import { database, read, storedDate, write } from "../lib/database";
import { listTokens } from "../lib/auth";
import { runBaton } from "./support/baton-command";

/**
 * The bounds of anonymous OAuth: what a registration may store, how long an unused client lives,
 * and that the authorization endpoint sends a browser nowhere before the operator decides.
 */
const resource = "http://127.0.0.1:3000/api/mcp";
const callback = "http://127.0.0.1:5599/callback";
const clientCount = async () => (await read((tx) => tx.get<{ n: number }>("SELECT count(*) AS n FROM oauth_clients")))!.n;

/** registerClient's refusal in RFC 7591's JSON shape, as the route answers it. */
async function refusal(body: unknown): Promise<{ error: string; error_description?: string }> {
  try {
    await registerClient(body);
  } catch (error) {
    if (error instanceof OAuthError) return error.toResponseObject();
    throw error;
  }
  throw new Error("the registration was accepted");
}

/** Backdates a client's registration by `ms`. */
const age = (clientId: string, ms: number) =>
  write((tx) => tx.run("UPDATE oauth_clients SET created_at = ? WHERE client_id = ?", [storedDate(new Date(Date.now() - ms)), clientId]));

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

describe("client registration is bounded in size", async () => {
  it("accepts what real connectors send (mcp-remote's metadata, a few hundred bytes)", async () => {
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
    expect(await registerClient(metadata)).toMatchObject({ client_name: "MCP CLI Proxy", redirect_uris: metadata.redirect_uris });
  });

  it("keeps a client name from reordering the consent page: bidirectional overrides and controls are stored as visible escapes", async () => {
    const registered = await registerClient({ client_name: "Claude\u202e tahc sa tca ot\u2066x\u0007", redirect_uris: ["http://localhost:3334/oauth/callback"] });
    expect(registered.client_name).toBe("Claude\\u202e tahc sa tca ot\\u2066x\\u0007");
  });

  it("keeps an approved connector's name, tabs and line breaks in it, from adding lines or columns to baton token list", async () => {
    const name = "Claude\n\tdesk\toperator\tcreated 2026-01-01T00:00:00.000Z\tlast used never";
    const registered = await registerClient({ client_name: name, redirect_uris: [callback] });
    await approveAuthorization({ ...authorizationParams(registered.client_id), act_as: "chat" }, resource);
    const listed = await runBaton(["token", "list"]);
    expect(listed.code, listed.stderr).toBe(0);
    // One line a token, each its name, role, dates and (a connector's) label: no line the name made.
    const lines = listed.stdout.trimEnd().split("\n").map((line) => line.split("\t"));
    expect(lines).toHaveLength((await listTokens()).length);
    for (const columns of lines) expect(columns[0]).toMatch(/^[a-z0-9][a-z0-9._-]*$/);
    expect(lines.map((columns) => columns.at(-1))).toContain("Claude\\n\\tdesk\\toperator\\tcreated 2026-01-01T00:00:00.000Z\\tlast used never (connector, acts as chat)");
  });

  it("refuses the reviewers' 19.5 KiB registration and each limit with RFC 7591's error and a description; stores nothing", async () => {
    const before = await clientCount();
    const longUri = (n: number) => `https://claude.ai/cb?${"p".repeat(n)}`;
    const cases: [string, unknown, string, RegExp][] = [
      ["ten 2,000-character redirect URIs", { client_name: "flood", redirect_uris: Array.from({ length: 10 }, (_, i) => `${longUri(1970)}${i}`) }, "invalid_client_metadata", /bytes of JSON; at most 4096/],
      ["a document over the byte cap", { client_name: "x", redirect_uris: [callback], software_statement: "s".repeat(MAX_REGISTRATION_BYTES) }, "invalid_client_metadata", /at most 4096 are accepted/],
      ["one redirect URI too many", { redirect_uris: Array.from({ length: MAX_REDIRECT_URIS + 1 }, (_, i) => `https://claude.ai/cb/${i}`) }, "invalid_redirect_uri", /6 given; at most 5 per client/],
      ["a redirect URI too long", { redirect_uris: [longUri(MAX_REDIRECT_URI_LENGTH)] }, "invalid_redirect_uri", /characters long; at most 512 are accepted/],
    ];
    for (const [what, body, error, description] of cases) {
      expect(await refusal(body), what).toEqual({ error, error_description: expect.stringMatching(description) });
    }
    expect(await clientCount()).toBe(before);
  });

  it("accepts the limits themselves", async () => {
    const uris = Array.from({ length: MAX_REDIRECT_URIS }, (_, i) => `https://claude.ai/${String(i).padEnd(MAX_REDIRECT_URI_LENGTH - "https://claude.ai/".length, "x")}`);
    expect(uris.every((uri) => uri.length === MAX_REDIRECT_URI_LENGTH)).toBe(true);
    expect((await registerClient({ client_name: "at the limits", redirect_uris: uris })).redirect_uris).toHaveLength(MAX_REDIRECT_URIS);
  });
});

describe("clients nobody approved expire", async () => {
  it("deletes an unused client a day old at the next registration, and treats it as unknown before that", async () => {
    const stale = (await registerClient({ client_name: "stale", redirect_uris: [callback] })).client_id;
    const fresh = (await registerClient({ client_name: "fresh", redirect_uris: [callback] })).client_id;
    await age(stale, UNUSED_CLIENT_TTL_MS + 60_000);
    await age(fresh, UNUSED_CLIENT_TTL_MS - 60_000);
    expect(await findClient(stale)).toBeNull();
    expect(await findClient(fresh)).toMatchObject({ name: "fresh" });
    expect(await checkAuthorizationRequest(authorizationParams(stale), resource)).toEqual({ ok: false, message: expect.stringContaining("the connector must register again") });

    await registerClient({ client_name: "next", redirect_uris: [callback] });
    const ids = (await read((tx) => tx.all<{ client_id: string }>("SELECT client_id FROM oauth_clients"))).map((row) => row.client_id);
    expect(ids).not.toContain(stale);
    expect(ids).toContain(fresh);
  });

  it("keeps a client the operator approved, however old", async () => {
    const approved = (await registerClient({ client_name: "Approved", redirect_uris: [callback] })).client_id;
    await approveAuthorization({ ...authorizationParams(approved), act_as: "code" }, resource);
    await age(approved, 30 * UNUSED_CLIENT_TTL_MS);
    await registerClient({ client_name: "later", redirect_uris: [callback] });
    expect(await findClient(approved)).toMatchObject({ name: "Approved" });
  });

  it(`keeps at most ${MAX_UNUSED_CLIENTS} unused clients: a registration beyond deletes the oldest unused, never an approved one`, async () => {
    await write((tx) => tx.run("DELETE FROM oauth_clients WHERE client_id NOT IN (SELECT client_id FROM access_tokens WHERE client_id IS NOT NULL)"));
    const approved = await clientCount();
    expect(approved).toBeGreaterThan(0);
    const start = Date.now() - 60 * 60 * 1000;
    await write(async (tx) => {
      for (let i = 0; i < MAX_UNUSED_CLIENTS; i++) {
        await tx.run("INSERT INTO oauth_clients (client_id, name, redirect_uris, created_at) VALUES (?, 'flood', ?, ?)", [`flood-${i}`, JSON.stringify([callback]), storedDate(new Date(start + i * 1000))]);
      }
    });
    const newest = (await registerClient({ client_name: "one more", redirect_uris: [callback] })).client_id;
    expect(await clientCount()).toBe(MAX_UNUSED_CLIENTS + approved);
    expect(await findClient("flood-0")).toBeNull();
    expect(await findClient("flood-1")).not.toBeNull();
    expect(await findClient(newest)).not.toBeNull();
  });
});

describe("/oauth/authorize sends the browser nowhere before the operator decides", async () => {
  it("answers response_type=token for an anonymously registered client with the page's error state, not a redirect", async () => {
    const { client_id: clientId } = await registerClient({ client_name: "Anonymous", redirect_uris: ["https://evil.example/landing"] });
    const params = authorizationParams(clientId, { redirect_uri: "https://evil.example/landing", response_type: "token" });
    const check = await checkAuthorizationRequest(params, resource);
    expect(check).toEqual({ ok: false, message: 'Anonymous asked for response_type "token"; Baton supports only "code" (authorization code with PKCE)' });
    const html = renderToString(AuthorizationView({ check, params }));
    expect(html).toContain("This connection request cannot be used");
    expect(html).toContain("you were not sent anywhere");
    expect(html).not.toContain("<form");
  });

  it("every problem with a known client and registered redirect URI is shown, none redirected", async () => {
    const { client_id: clientId } = await registerClient({ client_name: "Known", redirect_uris: [callback] });
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
      { client_id: "nul\u0000id" },
      { redirect_uri: "https://evil.example/cb" },
    ];
    for (const overrides of problems) {
      const check = await checkAuthorizationRequest(authorizationParams(clientId, overrides), resource);
      expect(check, JSON.stringify(overrides).slice(0, 80)).toEqual({ ok: false, message: expect.any(String) });
    }
  });

  it("the consent page names the client, shows its full redirect URI and the side it asks to act as", async () => {
    const redirectUri = "https://connector.example/oauth/callback/a-long-path?tenant=42";
    const { client_id: clientId } = await registerClient({ client_name: "Claude", redirect_uris: [redirectUri] });
    const params = authorizationParams(clientId, { redirect_uri: redirectUri });
    const check = await checkAuthorizationRequest(params, resource);
    expect(check.ok).toBe(true);
    const html = renderToString(AuthorizationView({ check, params })).replaceAll("<!-- -->", "");
    expect(html).toContain("<strong class=\"font-semibold\"><bdi>Claude</bdi></strong> wants to act as <strong class=\"font-semibold\">chat</strong>");
    expect(html).toContain(`>${redirectUri}</p>`);
    expect(html).toContain(`name="redirect_uri" value="${redirectUri}"`);
  });
});

describe("single-use secrets are spent once, whichever instance is asked", () => {
  /** A code approved for a fresh client as the consent page would, with its PKCE verifier. */
  async function approvedCode(clientName: string): Promise<{ clientId: string; code: string; verifier: string }> {
    const { client_id: clientId } = await registerClient({ client_name: clientName, redirect_uris: [callback] });
    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const target = new URL(await approveAuthorization({ ...authorizationParams(clientId, { code_challenge: challenge }), act_as: "chat" }, resource));
    return { clientId, code: target.searchParams.get("code")!, verifier };
  }
  const settled = <T>(work: Promise<T>) => work.then((value) => ({ value }), (error: Error) => ({ error }));
  /**
   * Opens connections for both racers first (PostgreSQL's pool, held a moment so that both
   * stay open): otherwise the first request ends while the second is still connecting.
   */
  const racing = async <T>(work: () => Promise<T>): Promise<Awaited<T>[]> => {
    const hold = database().engine === "postgres" ? "SELECT pg_sleep(0.05)" : "SELECT 1";
    await Promise.all([read((tx) => tx.run(hold)), read((tx) => tx.run(hold))]);
    return Promise.all([work(), work()]);
  };

  it("two exchanges of one code at once: one gets tokens, the other invalid_grant, and the grant's tokens are revoked", async () => {
    const { clientId, code, verifier } = await approvedCode("Racing code");
    const form = () => new URLSearchParams({ grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: callback, client_id: clientId, resource });
    const outcomes = await racing(() => settled(tokenRequest(form())));
    const issued = outcomes.flatMap((outcome) => ("value" in outcome ? [outcome.value] : []));
    const refused = outcomes.flatMap((outcome) => ("error" in outcome ? [outcome.error] : []));
    expect(issued).toHaveLength(1);
    expect(refused.map((error) => error.message)).toEqual([expect.stringContaining("already used")]);
    // A replay revokes what the code gave: the winner's access token no longer works.
    expect(await verifyAccessToken(issued[0].access_token, resource)).toBeNull();
  });

  it("two refreshes with one refresh token at once rotate it once", async () => {
    const { clientId, code, verifier } = await approvedCode("Racing refresh");
    const tokens = await tokenRequest(new URLSearchParams({ grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: callback, client_id: clientId }));
    const form = () => new URLSearchParams({ grant_type: "refresh_token", refresh_token: tokens.refresh_token!, client_id: clientId });
    const outcomes = await racing(() => settled(tokenRequest(form())));
    expect(outcomes.filter((outcome) => "value" in outcome)).toHaveLength(1);
    expect(outcomes.filter((outcome) => "error" in outcome).map((outcome) => ("error" in outcome ? outcome.error.message : ""))).toEqual([expect.stringContaining("already used")]);
  });

  it("two approvals of one client at once make one grant", async () => {
    const { client_id: clientId } = await registerClient({ client_name: "Twice approved", redirect_uris: [callback] });
    await racing(() => approveAuthorization({ ...authorizationParams(clientId), act_as: "code" }, resource));
    const grants = await read((tx) => tx.all<{ name: string }>("SELECT name FROM access_tokens WHERE client_id = ?", [clientId]));
    expect(grants).toEqual([{ name: "twice-approved-connector-code" }]);
  });
});
