import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { prepareDataDir, startExtraServer, waitUntil, type ExtraServer } from "./support/extra-server";
import { createLan, type Lan } from "./support/network-namespaces";
import { rawRequest } from "../tests/support/raw-http";

/**
 * Acceptance 2 of the trust work, on servers of their own (the same build, other ports and data
 * folders): BATON_AUTH=required on loopback, and a server bound to an address inside a network
 * namespace this test creates, reached from a second namespace.
 */
const basePort = Number(process.env.BATON_E2E_PORT || 3100);

test.describe("BATON_AUTH=required on loopback", () => {
  const port = basePort + 11;
  const origin = `http://127.0.0.1:${port}`;
  let server: ExtraServer;
  let tokens: Record<string, string>;

  test.beforeAll(async () => {
    const prepared = prepareDataDir([
      { name: "desk", role: "operator" },
      { name: "worker", role: "agent" },
    ]);
    tokens = prepared.tokens;
    server = startExtraServer({ dataDir: prepared.dataDir, port, env: { BATON_AUTH: "required" } });
    await waitUntil(async () => (await rawRequest(origin, "GET", "/sign-in", { host: `127.0.0.1:${port}` })).status === 200, "the BATON_AUTH=required server");
  });
  test.afterAll(() => {
    server?.stop();
    if (server) fs.rmSync(server.dataDir, { recursive: true, force: true });
  });

  test("every door needs a token; an agent token cannot manage tokens; a revoked token stops on the next request", async () => {
    const hostHeader = { host: `127.0.0.1:${port}` };
    expect((await rawRequest(origin, "GET", "/api/handoffs", hostHeader)).status).toBe(401);
    expect((await rawRequest(origin, "POST", "/api/mcp", { ...hostHeader, "content-type": "application/json" }, "{}")).status).toBe(401);
    expect((await rawRequest(origin, "GET", "/", hostHeader)).status).toBe(303);
    const agent = { ...hostHeader, authorization: `Bearer ${tokens.worker}` };
    expect((await rawRequest(origin, "GET", "/api/handoffs", agent)).status).toBe(200);
    expect((await rawRequest(origin, "GET", "/settings/tokens", agent)).status).toBe(403);
    expect((await rawRequest(origin, "GET", "/settings/tokens", { ...hostHeader, authorization: `Bearer ${tokens.desk}` })).status).toBe(200);
  });

  test("the operator signs in, creates and revokes a token, and signs out in Chromium", async ({ page }) => {
    await page.goto(`${origin}/agents`);
    await expect(page).toHaveURL(/\/sign-in\?next=%2Fagents$/);
    // Someone signed out sees the name and the theme, not the desk's navigation.
    await expect(page.getByRole("navigation", { name: "Main" })).toHaveCount(0);
    await expect(page.getByRole("link", { name: "Tokens" })).toHaveCount(0);
    await page.getByLabel("Token").fill("baton_not-a-real-token-at-all-not-a-real-token-x");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByText("that token is not valid (unknown or revoked)")).toBeVisible();
    await page.getByLabel("Token").fill(tokens.desk);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(`${origin}/agents`);
    await expect(page.getByText("Signed in as")).toContainText("desk");
    const cookies = await page.context().cookies(origin);
    expect(cookies.find((cookie) => cookie.name === "baton_session")).toMatchObject({ httpOnly: true, sameSite: "Lax" });

    await page.getByRole("link", { name: "Tokens" }).click();
    await page.getByLabel("Name").fill("laptop");
    await page.getByRole("button", { name: "Create token" }).click();
    const shown = (await page.getByTestId("new-token").textContent())!.trim();
    expect(shown).toMatch(/^baton_[A-Za-z0-9_-]{43}$/);
    const bearer = { host: `127.0.0.1:${port}`, authorization: `Bearer ${shown}` };
    expect((await rawRequest(origin, "GET", "/api/handoffs", bearer)).status).toBe(200);
    await page.getByRole("button", { name: "Revoke laptop" }).click();
    await page.getByRole("dialog", { name: "Revoke laptop?" }).getByRole("button", { name: "Revoke token" }).click();
    await expect(page.getByRole("button", { name: "Revoke laptop" })).toHaveCount(0);
    expect((await rawRequest(origin, "GET", "/api/handoffs", bearer)).status).toBe(401);

    // A draft left in this browser is forgotten on sign-out: the next operator does not see it.
    await page.evaluate(() => localStorage.setItem("baton.draft.reply.hof_AAAAAAAAAAAAAAAAAAAAA", "half-typed secret plan"));
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/sign-in/);
    expect(await page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith("baton.draft.")))).toEqual([]);
    await page.goto(`${origin}/`);
    await expect(page).toHaveURL(/\/sign-in\?next=%2F$/);
  });

  test("a session that ends while /agents is open sends the operator to sign in and back to /agents, not to Next's internal address", async ({ page }) => {
    await page.goto(`${origin}/agents`);
    await page.getByLabel("Token").fill(tokens.desk);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(`${origin}/agents`);
    await expect(page.getByTestId("live-status")).toHaveAttribute("data-live-path", "stream");
    // The session ends (signed out elsewhere): the server ends its stream, the reopened stream is
    // refused, and the page is read again at once and meets the guard, with no write needed and
    // without waiting for the fallback poll (10 s after a drop).
    const cookie = (await page.context().cookies(origin)).map((each) => `${each.name}=${each.value}`).join("; ");
    expect((await fetch(`${origin}/api/session`, { method: "DELETE", headers: { cookie } })).status).toBe(204);
    await expect(page).toHaveURL(`${origin}/sign-in?next=%2Fagents`, { timeout: 8000 });
    const registered = await fetch(`${origin}/api/agents`, {
      method: "POST",
      headers: { authorization: `Bearer ${tokens.worker}`, "content-type": "application/json" },
      body: JSON.stringify({ personaSlug: "late-arrival", project: "e2e" }),
    });
    expect(registered.status).toBe(201);
    await page.getByLabel("Token").fill(tokens.desk);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(`${origin}/agents`);
    await expect(page.getByRole("main").getByText("late-arrival").filter({ visible: true }).first()).toBeVisible();
  });
});

test.describe("beyond loopback, inside network namespaces this test creates", () => {
  let lan: Lan;
  let serverNs = "";
  let clientNs = "";
  let serverIp = "";
  const port = basePort + 12;
  /** curl run from the client namespace; prints the status code, then the body. */
  const curlFromLan = (path: string, headers: string[] = [], extra: string[] = []) => {
    const args = ["netns", "exec", clientNs, "curl", "-s", "-o", "-", "-w", "\n%{http_code}", "--max-time", "10", ...headers.flatMap((h) => ["-H", h]), ...extra, `http://${serverIp}:${port}${path}`];
    const out = execFileSync("ip", args, { encoding: "utf8" });
    const at = out.lastIndexOf("\n");
    return { status: Number(out.slice(at + 1)), body: out.slice(0, at) };
  };
  let server: ExtraServer | undefined;
  const dataDirs: string[] = [];

  test.beforeAll(() => {
    lan = createLan("b", 231);
    ({ serverNs, clientNs, serverIp } = lan);
  });
  test.afterAll(() => {
    server?.stop();
    lan?.destroy();
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  test("without a token configured the server refuses to start, with a one-line reason", async () => {
    const { dataDir } = prepareDataDir();
    dataDirs.push(dataDir);
    const refused = startExtraServer({ dataDir, port, host: serverIp, netns: serverNs });
    const { code, stderr } = await refused.exited;
    expect(code).toBe(1);
    expect(stderr.trim()).toMatch(new RegExp(`^baton: refusing to start: it would listen on ${serverIp.replaceAll(".", "\\.")}, beyond loopback, and no access token exists; create one with`));
  });

  test("with tokens, every door needs one and a forged Host: localhost does not help", async () => {
    const prepared = prepareDataDir([{ name: "lan-agent", role: "agent" }]);
    dataDirs.push(prepared.dataDir);
    server = startExtraServer({ dataDir: prepared.dataDir, port, host: serverIp, netns: serverNs });
    await waitUntil(async () => curlFromLan("/sign-in").status === 200, "the server inside the namespace");

    for (const headers of [[], [`Host: localhost:${port}`], [`Host: 127.0.0.1:${port}`]]) {
      expect(curlFromLan("/api/handoffs", headers).status).toBe(401);
      expect(curlFromLan("/api/mcp", [...headers, "Content-Type: application/json"], ["-d", "{}"]).status).toBe(401);
      expect(curlFromLan("/api/handoffs", [...headers, "Content-Type: application/json"], ["-d", '{"title":"lan","content":"x"}']).status).toBe(401);
      const page = curlFromLan("/agents", headers);
      expect(page.status).toBe(303);
    }
    const withToken = curlFromLan("/api/handoffs", [`Authorization: Bearer ${prepared.tokens["lan-agent"]}`]);
    expect(withToken.status).toBe(200);
    expect(JSON.parse(withToken.body)).toMatchObject({ total: 0 });
    expect(curlFromLan("/api/handoffs", ["Authorization: Bearer baton_wrong"]).status).toBe(401);
  });
});
