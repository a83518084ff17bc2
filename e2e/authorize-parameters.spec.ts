import { createHash, randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import { rawRequest } from "../tests/support/raw-http";

/**
 * /oauth/authorize with a parameter given twice (RFC 6749 §3.1: each at most once). The consent
 * page dropped such a parameter as if it were absent: two states became none (the code went back
 * without the client's state), two redirect URIs fell back to the registered one, two resources
 * read as "named no resource". It is now refused as what it is, and nothing is offered.
 */
const base = process.env.BATON_E2E_BASE_URL!;
const host = new URL(base).host;
const redirectUri = "http://127.0.0.1:5599/callback";

test("a consent request that gives a parameter twice is shown as refused (400), naming it; the same request given once is offered", async ({ page }) => {
  const registered = await rawRequest(base, "POST", "/oauth/register", { host, "content-type": "application/json" }, JSON.stringify({ client_name: "Twice", redirect_uris: [redirectUri] }));
  expect(registered.status).toBe(201);
  const clientId = (JSON.parse(registered.body) as { client_id: string }).client_id;
  const challenge = createHash("sha256").update(randomBytes(32).toString("base64url")).digest("base64url");
  const fields: [string, string][] = [
    ["client_id", clientId],
    ["redirect_uri", redirectUri],
    ["response_type", "code"],
    ["code_challenge", challenge],
    ["code_challenge_method", "S256"],
    ["resource", `${base}/api/mcp`],
    ["state", "first"],
  ];
  const authorize = (pairs: [string, string][]) => `/oauth/authorize?${new URLSearchParams(pairs)}`;

  await page.goto(authorize(fields));
  await expect(page.getByRole("heading", { name: "Twice wants to act as chat" })).toBeVisible();

  for (const extra of [["state", "second"], ["redirect_uri", "https://evil.example/callback"], ["resource", `${base}/api/mcp`]] as [string, string][]) {
    const answer = await page.goto(authorize([...fields, extra]));
    expect(answer?.status(), extra[0]).toBe(400);
    await expect(page.getByText(`the request gives ${extra[0]} more than once`)).toBeVisible();
    await expect(page.getByRole("button", { name: "Approve" })).toHaveCount(0);
  }
});
