import { createHash, randomBytes } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import { rawRequest } from "../tests/support/raw-http";

/**
 * RFC 8252 §7.3: "The authorization server MUST allow any port to be specified at the time of the
 * request for loopback IP redirect URIs". A native client (mcp-remote, Claude Code) registers
 * `http://localhost:<port>/callback` once and listens on whatever port is free when it signs in
 * again; Baton demanded the registered port and showed "is not one … registered" instead. Through
 * the real endpoints: registration, the consent page in Chromium, Approve, the token endpoint.
 */
const base = process.env.BATON_E2E_BASE_URL!;
const host = new URL(base).host;
const resource = `${base}/api/mcp`;

async function register(name: string, redirectUris: string[]): Promise<string> {
  const answer = await rawRequest(base, "POST", "/oauth/register", { host, "content-type": "application/json" }, JSON.stringify({ client_name: name, redirect_uris: redirectUris }));
  expect(answer.status).toBe(201);
  return (JSON.parse(answer.body) as { client_id: string }).client_id;
}

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

const authorizeUrl = (clientId: string, redirectUri: string, challenge: string) =>
  `/oauth/authorize?${new URLSearchParams({ client_id: clientId, redirect_uri: redirectUri, response_type: "code", code_challenge: challenge, code_challenge_method: "S256", resource, state: "s1" })}`;

const tokenPost = (fields: Record<string, string>) =>
  rawRequest(base, "POST", "/oauth/token", { host, "content-type": "application/x-www-form-urlencoded" }, new URLSearchParams(fields).toString());

/** Approves on the consent page and returns the callback URL the browser was sent to (answered here, as the client's listener would). */
async function approve(page: Page, path: string, callbackOrigin: string): Promise<URL> {
  let callback: URL | undefined;
  await page.route((url) => url.origin === callbackOrigin, (route) => {
    callback = new URL(route.request().url());
    return route.fulfill({ status: 200, contentType: "text/plain", body: "client callback" });
  });
  await page.goto(path);
  await page.getByRole("button", { name: "Approve" }).click();
  await expect.poll(() => callback?.href).toBeDefined();
  return callback!;
}

for (const loopback of ["127.0.0.1", "[::1]", "localhost"]) {
  test(`a client registered with http://${loopback}:<port>/callback signs in from another port; the token endpoint wants that very URI`, async ({ page }) => {
    const registered = `http://${loopback}:5599/callback`;
    const used = `http://${loopback}:6123/callback`;
    const clientId = await register("Native", [registered]);
    const { verifier, challenge } = pkce();

    const callback = await approve(page, authorizeUrl(clientId, used, challenge), `http://${loopback}:6123`);
    expect(`${callback.origin}${callback.pathname}`).toBe(used);
    expect(callback.searchParams.get("state")).toBe("s1");
    const code = callback.searchParams.get("code")!;

    // The registered URI is not the one this code was issued for (RFC 6749 §4.1.3): refused, the code unspent.
    const wrong = await tokenPost({ grant_type: "authorization_code", code, code_verifier: verifier, client_id: clientId, redirect_uri: registered, resource });
    expect(wrong.status).toBe(400);
    expect(JSON.parse(wrong.body)).toMatchObject({ error: "invalid_grant" });
    const tokens = await tokenPost({ grant_type: "authorization_code", code, code_verifier: verifier, client_id: clientId, redirect_uri: used, resource });
    expect(tokens.status).toBe(200);
    expect((JSON.parse(tokens.body) as { access_token: string }).access_token).toMatch(/^batonat_/);
  });
}

test("only the port of a loopback redirect URI may change: another host, path, query or scheme, or another port of an https URI, is refused on the page", async ({ page }) => {
  const clientId = await register("Strict", ["http://127.0.0.1:5599/callback?x=1", "https://app.example/callback"]);
  const { challenge } = pkce();
  let sent = false;
  await page.route((url) => url.origin !== new URL(base).origin, (route) => {
    sent = true;
    return route.fulfill({ status: 200, body: "should not be reached" });
  });
  for (const refused of [
    "http://localhost:5599/callback?x=1",
    "http://127.0.0.2:6123/callback?x=1",
    "http://127.0.0.1:6123/other?x=1",
    "http://127.0.0.1:6123/callback?x=2",
    "http://127.0.0.1:6123/callback",
    "https://127.0.0.1:6123/callback?x=1",
    "https://app.example:8443/callback",
    "http://127.0.0.1:99999/callback?x=1",
  ]) {
    const answer = await page.goto(authorizeUrl(clientId, refused, challenge));
    expect(answer?.status(), refused).toBe(400);
    await expect(page.getByText("is not one Strict registered; nothing was sent to it")).toBeVisible();
    await expect(page.getByRole("button", { name: "Approve" })).toHaveCount(0);
  }
  expect(sent).toBe(false);
  // The registered URIs themselves, and the loopback one on another port, are offered.
  for (const offered of ["http://127.0.0.1:5599/callback?x=1", "http://127.0.0.1:6123/callback?x=1", "https://app.example/callback"]) {
    const answer = await page.goto(authorizeUrl(clientId, offered, challenge));
    expect(answer?.status(), offered).toBe(200);
    await expect(page.getByRole("button", { name: "Approve" })).toBeVisible();
  }
});
