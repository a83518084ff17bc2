import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { expect, test } from "@playwright/test";
import { prepareDataDir, signInWith, startAndWait, stopAndWait, whenHydrated, type ExtraServer } from "./support/extra-server";
import { scratchDir } from "./support/scratch";

/**
 * The MCP clients people use, unmodified, against the server users run: mcp-remote (Claude
 * Desktop's bridge) through OAuth with Chromium approving "code", MCP Inspector's CLI over HTTP,
 * and Claude Code's own CLI adding Baton the README's way.
 */
const basePort = Number(process.env.BATON_E2E_PORT || 3100);
const root = path.resolve(import.meta.dirname, "..");
const mainOrigin = `http://127.0.0.1:${basePort}`;

type Run = { code: number | null; stdout: string; stderr: string };

/** Runs a command to its end, never throwing: the test asserts its exit code and output. */
function run(file: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: options.cwd ?? root, env: options.env ?? process.env, timeout: options.timeoutMs ?? 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The access token mcp-remote stored under MCP_REMOTE_CONFIG_DIR (`mcp-remote-v1/<hash>_tokens.json`). */
function storedAccessToken(configDir: string): string {
  const files = fs.readdirSync(configDir, { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith("_tokens.json"));
  expect(files).toHaveLength(1);
  return (JSON.parse(fs.readFileSync(path.join(configDir, files[0]), "utf8")) as { access_token: string }).access_token;
}

test.describe("mcp-remote completes OAuth against BATON_AUTH=required", () => {
  const port = basePort + 55;
  const callbackPort = basePort + 56;
  const origin = `http://127.0.0.1:${port}`;
  const mcpRemote = path.join(root, "node_modules", "mcp-remote", "dist", "proxy.js");
  let server: ExtraServer;
  let operatorToken = "";
  let configDir = "";

  test.beforeAll(async () => {
    const prepared = prepareDataDir([{ name: "desk", role: "operator" }]);
    operatorToken = prepared.tokens.desk;
    configDir = scratchDir("mcp-remote-");
    server = await startAndWait(
      { dataDir: prepared.dataDir, port, env: { BATON_AUTH: "required" } },
      async () => (await fetch(`${origin}/.well-known/oauth-authorization-server`)).status === 200,
      "the BATON_AUTH=required server",
    );
  });
  test.afterAll(async () => {
    if (server) {
      await stopAndWait(server);
      fs.rmSync(server.dataDir, { recursive: true, force: true });
    }
    if (configDir) fs.rmSync(configDir, { recursive: true, force: true });
  });

  test("Chromium approves code; create_handoff through mcp-remote stores from_client code; a revoked grant stops the next call", async ({ page }) => {
    test.setTimeout(180_000);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [mcpRemote, `${origin}/api/mcp`, String(callbackPort), "--auth-timeout", "120"],
      cwd: configDir,
      // Its tokens in a folder of the test's; BROWSER=true: the "browser" it opens does nothing, Chromium follows the printed URL.
      env: { ...process.env, MCP_REMOTE_CONFIG_DIR: configDir, HOME: configDir, BROWSER: "true", DISPLAY: "" } as Record<string, string>,
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: "claude-desktop-e2e", version: "1.0.0" });
    const connected = client.connect(transport, { timeout: 150_000 });
    try {
      // mcp-remote met the 401, registered, and prints where to authorize.
      let authorizationUrl = "";
      await expect
        .poll(() => (authorizationUrl = /Please authorize this client by visiting:\s*(\S+)/.exec(stderr)?.[1] ?? ""), { timeout: 60_000, message: stderr })
        .not.toBe("");
      const url = new URL(authorizationUrl);
      expect(`${url.origin}${url.pathname}`).toBe(`${origin}/oauth/authorize`);
      expect(url.searchParams.get("redirect_uri")).toBe(`http://localhost:${callbackPort}/oauth/callback`);

      // The operator signs in with a token, then consents to "code".
      await page.goto(authorizationUrl);
      await expect(page).toHaveURL(/\/sign-in\?next=%2Foauth%2Fauthorize%3F/);
      await signInWith(page, operatorToken);
      await expect(page).toHaveURL(authorizationUrl);
      await expect(page.getByText(`http://localhost:${callbackPort}/oauth/callback`)).toBeVisible();
      await (await whenHydrated(page.getByRole("radio", { name: /^code\b/ }))).check();
      await expect(page.getByRole("heading", { name: /wants to act as code/ })).toBeVisible();
      await page.getByRole("button", { name: "Approve" }).click();
      // The browser lands on mcp-remote's own callback page.
      await expect(page).toHaveURL(new RegExp(`^http://localhost:${callbackPort}/oauth/callback\\?`));
      await connected;
      // The access token mcp-remote keeps (in the folder the test gave it), to ask the server about it after the revoke.
      const accessToken = storedAccessToken(configDir);
      expect(accessToken).toMatch(/^batonat_/);

      const created = await client.callTool({ name: "create_handoff", arguments: { title: "Through mcp-remote", content: "approved as code" } });
      expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
      const handoff = created.structuredContent as { handoff: { id: string }; entries: { from_client: string }[] };
      expect(handoff.entries[0].from_client).toBe("code");
      const stored = await fetch(`${origin}/api/handoffs/${handoff.handoff.id}?as=code`, { headers: { authorization: `Bearer ${operatorToken}` } });
      expect(stored.status).toBe(200);
      expect(((await stored.json()) as { entries: { fromClient: string }[] }).entries.map((entry) => entry.fromClient)).toEqual(["code"]);

      // The operator revokes the grant on the Tokens page.
      await page.goto(`${origin}/settings/tokens`);
      const grant = page.getByRole("row").filter({ hasText: "acts as code" });
      await expect(grant).toHaveCount(1);
      await grant.getByRole("button", { name: /^Revoke / }).click();
      // The Tokens page asks first.
      await page.getByRole("dialog", { name: /^Revoke / }).getByRole("button", { name: "Revoke token" }).click();
      await expect(page.getByRole("row").filter({ hasText: "acts as code" })).toHaveCount(0);

      // The server now answers that token 401 invalid_token ...
      const refused = await fetch(`${origin}/api/mcp`, {
        method: "POST",
        headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
      expect(refused.status).toBe(401);
      expect(refused.headers.get("www-authenticate")).toContain('error="invalid_token"');
      // ... so the next call through mcp-remote fails: it meets the 401, cannot refresh a revoked grant, and asks the operator to authorize again.
      const before = stderr.length;
      const after = await client
        .callTool({ name: "create_handoff", arguments: { title: "After the revoke", content: "must not be stored" } }, undefined, { timeout: 20_000 })
        .then(
          (result) => ({ ok: !result.isError, detail: JSON.stringify(result.content) }),
          (error: Error) => ({ ok: false, detail: error.message }),
        );
      expect(after.ok, after.detail).toBe(false);
      const said = stderr.slice(before);
      expect(said).toContain("UnauthorizedError");
      expect(said).toMatch(/Please authorize this client by visiting:\s*http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?/);
      const listed = await fetch(`${origin}/api/handoffs`, { headers: { authorization: `Bearer ${operatorToken}` } });
      expect(((await listed.json()) as { total: number }).total).toBe(1);
    } finally {
      await client.close().catch(() => undefined);
    }
    expect(fs.existsSync(path.join(server.dataDir, "server-errors.log"))).toBe(false);
  });
});

test.describe("MCP Inspector's CLI over HTTP", () => {
  const inspectorCli = path.join(root, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js");
  let home = "";
  test.beforeAll(() => {
    home = scratchDir("inspector-");
  });
  test.afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

  const inspect = (method: string, extra: string[] = []) =>
    run(process.execPath, [inspectorCli, "--cli", `${mainOrigin}/api/mcp`, "--transport", "http", "--method", method, ...extra], { cwd: home, env: { ...process.env, HOME: home } });

  test("lists tools, prompts, resources and templates with zero schema warnings", async ({ request }) => {
    expect((await request.post("/api/handoffs", { data: { title: "E2E: listed by Inspector", content: "x" } })).status()).toBe(201);
    const tools = await inspect("tools/list");
    expect(tools.code, tools.stderr).toBe(0);
    const warnings = /(\d+)\s+(?:schema )?(?:portability )?(?:warning|finding)/i.exec(tools.stderr);
    expect(tools.stderr, `Inspector's lint over HTTP: ${warnings?.[0] ?? tools.stderr}`).not.toMatch(/Schema portability|Warning:|Error:/);
    expect(((JSON.parse(tools.stdout) as { tools: unknown[] }).tools ?? []).length).toBe(10);

    const strict = await inspect("tools/list", ["--strict", "--format", "json"]);
    expect(strict.code, strict.stderr).toBe(0);
    expect((JSON.parse(strict.stdout) as { schemaFindings?: unknown }).schemaFindings).toBeUndefined();

    for (const [method, key, atLeast] of [
      ["prompts/list", "prompts", 3],
      ["resources/list", "resources", 1],
      ["resources/templates/list", "resourceTemplates", 2],
    ] as const) {
      const listed = await inspect(method);
      expect(listed.code, `${method}: ${listed.stderr}`).toBe(0);
      expect(listed.stderr, method).not.toMatch(/Warning:|Error:/);
      expect(((JSON.parse(listed.stdout) as Record<string, unknown[]>)[key] ?? []).length, method).toBeGreaterThanOrEqual(atLeast);
    }
  });
});

test.describe("Claude Code's CLI", () => {
  test("`claude mcp add --transport http` the README's way, then `claude mcp list` reports Baton connected", async () => {
    const home = scratchDir("claude-");
    const env = { ...process.env, HOME: home, CLAUDE_CONFIG_DIR: path.join(home, ".claude"), CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_AUTOUPDATER: "1" };
    const claude = path.join(root, "node_modules", ".bin", "claude");
    try {
      const added = await run(claude, ["mcp", "add", "--transport", "http", "baton", `${mainOrigin}/api/mcp`], { cwd: home, env });
      expect(added.code, added.stderr + added.stdout).toBe(0);
      const listed = await run(claude, ["mcp", "list"], { cwd: home, env });
      expect(listed.code, listed.stderr + listed.stdout).toBe(0);
      expect(listed.stdout).toContain(`baton: ${mainOrigin}/api/mcp (HTTP) - ✔ Connected`);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
