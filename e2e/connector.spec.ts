import fs from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  exchangeAuthorization,
  extractWWWAuthenticateParams,
  refreshAuthorization,
  registerClient,
  startAuthorization,
} from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect, test } from "@playwright/test";
import { prepareDataDir, startAndWait, type ExtraServer } from "./support/extra-server";

/**
 * A scripted client that behaves as claude.ai's custom connector does, with the MCP SDK's own
 * client auth functions, against a BATON_AUTH=required server: discovery from the 401 →
 * registration → sign-in and consent in Chromium → code for tokens → tools/call → refresh →
 * the operator revokes the grant on the Tokens page → the next call is refused.
 */
const port = Number(process.env.BATON_E2E_PORT || 3100) + 31;
const origin = `http://127.0.0.1:${port}`;
const mcpUrl = `${origin}/api/mcp`;
// Nothing listens here: Chromium's navigation to it is intercepted, as a connector's callback page would receive it.
const redirectUri = `http://127.0.0.1:${port + 1}/callback`;

let server: ExtraServer;
let operatorToken: string;

test.beforeAll(async () => {
  const prepared = prepareDataDir([{ name: "desk", role: "operator" }]);
  operatorToken = prepared.tokens.desk;
  server = await startAndWait({ dataDir: prepared.dataDir, port, env: { BATON_AUTH: "required" } }, async () => (await fetch(`${origin}/.well-known/oauth-authorization-server`)).status === 200, "the BATON_AUTH=required server");
});

test.afterAll(() => {
  server?.stop();
  if (server) fs.rmSync(server.dataDir, { recursive: true, force: true });
});

async function createHandoff(accessToken: string, title: string): Promise<{ from_client: string }> {
  const client = new Client({ name: "connector-e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${accessToken}` } } }));
  try {
    const result = await client.callTool({ name: "create_handoff", arguments: { title, content: "decided on claude.ai" } });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    return (result.structuredContent as { entries: { from_client: string }[] }).entries[0];
  } finally {
    await client.close();
  }
}

const mcpStatus = async (accessToken: string) =>
  (
    await fetch(mcpUrl, {
      method: "POST",
      headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    })
  ).status;

test("a connector discovers, registers, is approved in Chromium, calls a tool, refreshes, and stops when the grant is revoked", async ({ page }) => {
  // Discovery starts from the MCP endpoint's 401.
  const refused = await fetch(mcpUrl, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  expect(refused.status).toBe(401);
  const { resourceMetadataUrl } = extractWWWAuthenticateParams(refused);
  expect(resourceMetadataUrl?.href).toBe(`${origin}/.well-known/oauth-protected-resource`);
  const resourceMetadata = await discoverOAuthProtectedResourceMetadata(mcpUrl, { resourceMetadataUrl });
  expect(resourceMetadata.resource).toBe(mcpUrl);
  const issuer = resourceMetadata.authorization_servers![0];
  const metadata = (await discoverAuthorizationServerMetadata(issuer))!;
  expect(metadata.registration_endpoint).toBe(`${origin}/oauth/register`);

  const clientInformation = await registerClient(issuer, { metadata, clientMetadata: { client_name: "Claude", redirect_uris: [redirectUri], token_endpoint_auth_method: "none" } });
  const { authorizationUrl, codeVerifier } = await startAuthorization(issuer, { metadata, clientInformation, redirectUrl: redirectUri, state: "e2e-state", resource: new URL(mcpUrl) });

  // An unregistered redirect_uri gets an error page, never a redirect.
  const tampered = new URL(authorizationUrl);
  tampered.searchParams.set("redirect_uri", "https://evil.example/callback");

  // The operator: sent to sign in, then back to the whole authorize URL, then consents.
  let callback: URL | undefined;
  await page.route(`http://127.0.0.1:${port + 1}/**`, (route) => {
    callback = new URL(route.request().url());
    return route.fulfill({ status: 200, contentType: "text/plain", body: "connector callback" });
  });
  await page.goto(authorizationUrl.href);
  await expect(page).toHaveURL(/\/sign-in\?next=%2Foauth%2Fauthorize%3F/);
  await page.getByLabel("Token").fill(operatorToken);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(authorizationUrl.href);
  await expect(page.getByRole("heading", { name: "Claude wants to act as chat" })).toBeVisible();
  // The full address Approve or Deny sends the browser to, not just its host.
  await expect(page.getByText(redirectUri, { exact: true })).toBeVisible();

  await page.goto(tampered.href);
  await expect(page.getByText("is not one Claude registered; nothing was sent to it")).toBeVisible();
  await expect(page).toHaveURL(tampered.href);
  expect(callback).toBeUndefined();

  // An implicit-flow request from a registered client is an error page too: no redirect before consent.
  const implicit = new URL(authorizationUrl);
  implicit.searchParams.set("response_type", "token");
  await page.goto(implicit.href);
  await expect(page.getByText('Claude asked for response_type "token"; Baton supports only "code"')).toBeVisible();
  await expect(page).toHaveURL(implicit.href);
  expect(callback).toBeUndefined();

  await page.goto(authorizationUrl.href);
  await page.getByRole("button", { name: "Approve" }).click();
  await expect.poll(() => callback?.href).toBeDefined();
  expect(`${callback!.origin}${callback!.pathname}`).toBe(redirectUri);
  expect(callback!.searchParams.get("state")).toBe("e2e-state");
  const code = callback!.searchParams.get("code")!;

  const tokens = await exchangeAuthorization(issuer, { metadata, clientInformation, authorizationCode: code, codeVerifier, redirectUri, resource: new URL(mcpUrl) });
  expect(tokens.access_token).toMatch(/^batonat_/);
  // The handoff's creator is the side the operator granted.
  expect((await createHandoff(tokens.access_token, "Made by the connector")).from_client).toBe("chat");

  const refreshed = await refreshAuthorization(issuer, { metadata, clientInformation, refreshToken: tokens.refresh_token!, resource: new URL(mcpUrl) });
  expect((await createHandoff(refreshed.access_token, "After a refresh")).from_client).toBe("chat");

  // The grant in the token list, revoked by the operator.
  await page.goto(`${origin}/settings/tokens`);
  await expect(page.getByText("Claude (connector, acts as chat)")).toBeVisible();
  await page.getByRole("button", { name: "Revoke claude-connector-chat" }).click();
  await page.getByRole("dialog", { name: "Revoke claude-connector-chat?" }).getByRole("button", { name: "Revoke token" }).click();
  await expect(page.getByRole("button", { name: "Revoke claude-connector-chat" })).toHaveCount(0);
  expect(await mcpStatus(refreshed.access_token)).toBe(401);
  const refreshAfterRevoke = fetch(`${origin}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshed.refresh_token!, client_id: clientInformation.client_id }),
  });
  expect((await refreshAfterRevoke).status).toBe(400);

  // No 5xx on this server either (the shared server's log is checked by the global teardown).
  expect(fs.existsSync(path.join(server.dataDir, "server-errors.log"))).toBe(false);
});
