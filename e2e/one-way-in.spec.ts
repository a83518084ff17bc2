import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import Database from "better-sqlite3";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect, test, type Page } from "@playwright/test";
import { prepareDataDir, signInWith, startAndWait, stopAndWait, type ExtraServer } from "./support/extra-server";
import { createLan, type Lan } from "./support/network-namespaces";
import { scratchDir } from "./support/scratch";

/**
 * Issue 16 ("One way in"), through the server users run (`npm start`'s compiled server, real
 * sockets): a LAN peer in network namespaces this file creates cannot name server folders or
 * type into tmux whatever Baton headers it sends; loopback HTTP is local; pages cannot be framed;
 * sign-in's `next` never leaves Baton's origin; every page carries a nonce'd CSP the dashboard
 * runs under. Each of these failed against the server before the rebuild.
 */
const basePort = Number(process.env.BATON_E2E_PORT || 3100);
const root = path.resolve(import.meta.dirname, "..");
const mainOrigin = `http://127.0.0.1:${basePort}`;
const FOLDER_RULE = /read only for callers on Baton's own machine/;

type Json = Record<string, unknown>;

/** Rows of the server's own database, read beside it (read-only): what REST and MCP do not show, such as recorded git state. */
function queryDatabase<T>(dataDir: string, sql: string): T[] {
  const database = new Database(path.join(dataDir, "baton.db"), { readonly: true, fileMustExist: true });
  try {
    return database.prepare(sql).all() as T[];
  } finally {
    database.close();
  }
}

/** A git repository with one commit, in a temp folder. */
function gitRepository(): { dir: string; commit: (message: string) => string } {
  const dir = scratchDir("repo-");
  const git = (...args: string[]) => execFileSync("git", ["-C", dir, ...args], { encoding: "utf8" }).trim();
  git("init", "-q", "-b", "main");
  git("config", "user.email", "e2e@example.invalid");
  git("config", "user.name", "e2e");
  const commit = (message: string) => {
    fs.writeFileSync(path.join(dir, "notes.md"), `${message}\n`, { flag: "a" });
    git("add", "notes.md");
    git("commit", "-q", "-m", message);
    return git("rev-parse", "HEAD");
  };
  commit("first");
  return { dir, commit };
}

test.describe("a LAN peer, in network namespaces this test creates", () => {
  let network: Lan;
  let serverNs = "";
  let clientNs = "";
  let serverUrl = "";
  const port = basePort + 51;
  // A private tmux server (tmux -L): the pane the operator's successor would run in.
  const tmuxSocket = `baton-e2e-1w-${process.pid}`;
  const tmux = (...args: string[]) => execFileSync("tmux", ["-L", tmuxSocket, ...args], { encoding: "utf8" });
  const pane = () => tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", "=work:0.0");
  let server: ExtraServer | undefined;
  let dataDir = "";
  let tokens: Record<string, string> = {};

  /**
   * curl from the client namespace, always with the headers the old server trusted
   * (`x-baton-principal: local`, `x-baton-act-as: code`): they must change nothing.
   */
  const lan = (method: string, urlPath: string, token: string, body?: unknown) => {
    const args = ["netns", "exec", clientNs, "curl", "-s", "-o", "-", "-w", "\n%{http_code}", "--max-time", "20", "-X", method];
    for (const header of [`Authorization: Bearer ${token}`, "x-baton-principal: local", "x-baton-act-as: code", "X-Baton-Caller: operator"]) args.push("-H", header);
    if (body !== undefined) args.push("-H", "Content-Type: application/json", "--data-binary", JSON.stringify(body));
    const out = execFileSync("ip", [...args, `${serverUrl}${urlPath}`], { encoding: "utf8" });
    const at = out.lastIndexOf("\n");
    const text = out.slice(0, at);
    let json: Json = {};
    try {
      json = JSON.parse(text) as Json;
    } catch {
      // Not JSON: the assertions below say what was expected.
    }
    return { status: Number(out.slice(at + 1)), json, text };
  };

  /** The MCP SDK's own client, run inside the client namespace, calling one tool with Baton's header names added. */
  const lanToolCall = (token: string, tool: string, args: Json): { isError?: boolean; content: { text: string }[]; structuredContent?: Json } => {
    const script = `
      import { Client } from "@modelcontextprotocol/sdk/client/index.js";
      import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
      const headers = { authorization: "Bearer " + process.env.LAN_TOKEN, "x-baton-principal": "local", "x-baton-act-as": "code" };
      const client = new Client({ name: "lan-peer", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(process.env.LAN_URL), { requestInit: { headers } }));
      const result = await client.callTool({ name: process.env.LAN_TOOL, arguments: JSON.parse(process.env.LAN_ARGS) });
      await client.close();
      process.stdout.write(JSON.stringify(result));
    `;
    const out = execFileSync("ip", ["netns", "exec", clientNs, process.execPath, "--input-type=module", "-e", script], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, LAN_TOKEN: token, LAN_URL: `${serverUrl}/api/mcp`, LAN_TOOL: tool, LAN_ARGS: JSON.stringify(args) },
    });
    return JSON.parse(out);
  };

  const handoffCount = () => lan("GET", "/api/handoffs", tokens.agent).json.total;
  const agentCount = () => lan("GET", "/api/agents?status=active", tokens.operator).json.total;

  test.beforeAll(async () => {
    network = createLan("w", 232);
    ({ serverNs, clientNs } = network);
    serverUrl = `http://${network.serverIp}:${port}`;
    // The agent's pane: `cat` under Claude Code's process name (Baton types only into an agent),
    // so whatever is typed and entered shows on it, and runs nothing.
    const agentBin = scratchDir("agent-");
    fs.symlinkSync(execFileSync("sh", ["-c", "command -v cat"], { encoding: "utf8" }).trim(), path.join(agentBin, "claude"));
    tmux("new-session", "-d", "-s", "work", "-x", "200", "-y", "50", path.join(agentBin, "claude"));

    const prepared = prepareDataDir([
      { name: "lan-agent", role: "agent" },
      { name: "lan-operator", role: "operator" },
    ]);
    dataDir = prepared.dataDir;
    tokens = { agent: prepared.tokens["lan-agent"], operator: prepared.tokens["lan-operator"] };
    server = await startAndWait(
      { dataDir, port, host: network.serverIp, netns: serverNs, env: { BATON_TMUX_SOCKET: tmuxSocket } },
      async () => lan("GET", "/api/handoffs", tokens.agent).status === 200,
      "the server inside the namespace",
    );
  });

  test.afterAll(async () => {
    if (server) await stopAndWait(server);
    network?.destroy();
    try {
      const socketPath = tmux("display-message", "-p", "#{socket_path}").trim();
      tmux("kill-server");
      // tmux leaves its socket file behind (one per run in /tmp/tmux-<uid>).
      fs.rmSync(socketPath, { force: true });
    } catch {
      // Not started.
    }
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test("MCP: an agent token's repo_path is refused even with x-baton-principal: local, and nothing is stored", async () => {
    const refused = lanToolCall(tokens.agent, "create_handoff", { title: "From the LAN", content: "read my folder", repo_path: root });
    expect(refused.isError).toBe(true);
    expect(refused.content[0].text).toMatch(FOLDER_RULE);
    expect(handoffCount()).toBe(0);

    // Baton's header names change nothing either: x-baton-act-as: code did not make this a code call.
    const created = lanToolCall(tokens.agent, "create_handoff", { title: "From the LAN", content: "no folder named" });
    expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
    expect((created.structuredContent!.entries as { from_client: string }[])[0].from_client).toBe("chat");
    expect(handoffCount()).toBe(1);
    expect(queryDatabase<{ git: string | null }>(dataDir, "SELECT git FROM handoffs")).toEqual([{ git: null }]);
  });

  test("REST: repoPath from an agent token is 403 FORBIDDEN on create and append; nothing and no git state is stored", async () => {
    const before = handoffCount() as number;
    const create = lan("POST", "/api/handoffs", tokens.agent, { title: "REST from the LAN", content: "with a folder", repoPath: root });
    expect(create.status, create.text).toBe(403);
    expect(create.json.error).toMatchObject({ code: "FORBIDDEN", message: expect.stringMatching(FOLDER_RULE) });
    expect(handoffCount()).toBe(before);

    const plain = lan("POST", "/api/handoffs", tokens.agent, { title: "REST from the LAN", content: "no folder" });
    expect(plain.status, plain.text).toBe(201);
    const handoffId = (plain.json.handoff as { id: string }).id;
    const append = lan("POST", `/api/handoffs/${handoffId}/entries`, tokens.agent, { type: "progress", content: "read my folder", asClient: "code", repoPath: root });
    expect(append.status, append.text).toBe(403);
    expect(append.json.error).toMatchObject({ code: "FORBIDDEN" });
    // The operator's token is not on this machine either: the rule is about where, not who.
    expect(lan("POST", `/api/handoffs/${handoffId}/entries`, tokens.operator, { type: "progress", content: "x", asClient: "code", repoPath: root }).status).toBe(403);

    const thread = lan("GET", `/api/handoffs/${handoffId}?as=code`, tokens.agent);
    expect(thread.status).toBe(200);
    expect(thread.json).toMatchObject({ entryCount: 1, staleness: null });
    expect(queryDatabase(dataDir, "SELECT id FROM handoffs WHERE git IS NOT NULL")).toEqual([]);
    expect(queryDatabase(dataDir, "SELECT seq FROM handoff_entries WHERE git IS NOT NULL")).toEqual([]);
  });

  test("tmux: an agent token may not name a target (403, no record, nothing typed); the operator's token may", async () => {
    const registered = lan("POST", "/api/agents", tokens.agent, { personaSlug: "lan-dev", project: "e2e" });
    expect(registered.status, registered.text).toBe(201);
    const agentId = registered.json.id as number;
    const activeBefore = agentCount();

    const handoff = lan("POST", `/api/agents/${agentId}/handoff`, tokens.agent, {
      reason: "shift_end",
      document: "# Handoff\n\nNext: type into the operator's terminal.",
      successor: { tmuxTarget: "work" },
    });
    expect(handoff.status, handoff.text).toBe(403);
    expect(handoff.json.error).toMatchObject({ code: "FORBIDDEN", message: expect.stringContaining("typing into a pane is for the operator") });
    const after = lan("GET", `/api/agents/${agentId}`, tokens.agent);
    expect(after.json).toMatchObject({ status: "active", handoff: null });
    expect(queryDatabase(dataDir, "SELECT id FROM handoff_records")).toEqual([]);

    const withTarget = lan("POST", "/api/agents", tokens.agent, { personaSlug: "lan-dev", tmuxTarget: "work" });
    expect(withTarget.status, withTarget.text).toBe(403);
    expect(lan("PATCH", `/api/agents/${agentId}`, tokens.agent, { tmuxTarget: "work" }).status).toBe(403);
    expect(agentCount()).toBe(activeBefore);
    expect(pane()).not.toContain("Continuing from");

    // The operator, from the same LAN peer: accepted, and the prompt reaches the pane.
    const operatorAgent = lan("POST", "/api/agents", tokens.operator, { personaSlug: "lan-dev", tmuxTarget: "work" });
    expect(operatorAgent.status, operatorAgent.text).toBe(201);
    const delivered = lan("POST", `/api/agents/${operatorAgent.json.id}/handoff`, tokens.operator, {
      reason: "shift_end",
      document: "# Handoff\n\nNext: carry on.",
      successor: { tmuxTarget: "work" },
    });
    expect(delivered.status, delivered.text).toBe(201);
    expect(delivered.json.record).toMatchObject({ delivery: "delivered", deliveryState: "submitted" });
    expect(pane()).toContain("Continuing from Agent");

    // A target no tmux server has: still the operator's right, the delivery is reported failed.
    const missing = lan("POST", `/api/agents/${agentId}/handoff`, tokens.operator, {
      reason: "shift_end",
      document: "# Handoff\n\nNext: carry on.",
      successor: { tmuxTarget: "nowhere" },
    });
    expect(missing.status, missing.text).toBe(201);
    expect(missing.json.record).toMatchObject({ deliveryState: "failed", delivery: expect.stringMatching(/^failed: /) });
  });
});

test.describe("loopback HTTP is on Baton's own machine", () => {
  test("the MCP SDK client over Streamable HTTP names a repository folder; the handoff records where it stood", async () => {
    const repo = gitRepository();
    const head = execFileSync("git", ["-C", repo.dir, "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
    const client = new Client({ name: "loopback-e2e", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${mainOrigin}/api/mcp`)));
    try {
      const created = await client.callTool({ name: "create_handoff", arguments: { title: "E2E: loopback repo_path", content: "from this machine", repo_path: repo.dir } });
      expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
      const handoffId = (created.structuredContent as { handoff: { id: string } }).handoff.id;
      const [row] = queryDatabase<{ git: string }>(process.env.BATON_DATA_DIR!, `SELECT git FROM handoffs WHERE id = '${handoffId}'`);
      expect(JSON.parse(row.git)).toMatchObject({ head, branch: "main" });

      // The recorded state is what a later reader is compared with.
      repo.commit("second");
      const read = await client.callTool({ name: "get_handoff", arguments: { id: handoffId, as_client: "code", repo_path: repo.dir } });
      expect(read.isError, JSON.stringify(read.content)).toBeFalsy();
      expect((read.structuredContent as { staleness: { commits_since: number } | null }).staleness).toMatchObject({ commits_since: 1 });
    } finally {
      await client.close();
      fs.rmSync(repo.dir, { recursive: true, force: true });
    }
  });
});

/** A page on another origin (another loopback port) that frames `target`. */
function hostilePage(port: number, target: string): Promise<http.Server> {
  const html = `<!doctype html><title>Win a prize</title><p>Click the button!</p><iframe id="victim" src="${target.replaceAll("&", "&amp;")}" width="800" height="600" style="opacity:0.01"></iframe>`;
  const server = http.createServer((_request, response) => response.writeHead(200, { "content-type": "text/html" }).end(html));
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
}

test.describe("browser hardening", () => {
  test("a page of another origin (here another port: same-site) cannot frame the open desk's consent page", async ({ page }) => {
    const registered = await fetch(`${mainOrigin}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Framed", redirect_uris: [`http://127.0.0.1:${basePort + 54}/callback`], token_endpoint_auth_method: "none" }),
    });
    expect(registered.status).toBe(201);
    const { client_id } = (await registered.json()) as { client_id: string };
    const authorize = new URL(`${mainOrigin}/oauth/authorize`);
    for (const [name, value] of Object.entries({
      response_type: "code",
      client_id,
      redirect_uri: `http://127.0.0.1:${basePort + 54}/callback`,
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
      state: "framed",
      resource: `${mainOrigin}/api/mcp`,
    })) {
      authorize.searchParams.set(name, value);
    }
    // Unframed, the page is the consent form.
    await page.goto(authorize.href);
    await expect(page.getByRole("button", { name: "Approve" })).toBeVisible();

    const hostile = await hostilePage(basePort + 53, authorize.href);
    try {
      const refusals: string[] = [];
      page.on("console", (message) => {
          if (/^Framing .* violates|Refused to (display|frame)/.test(message.text())) refusals.push(message.text());
      });
      const framed = page.waitForResponse((response) => response.url() === authorize.href);
      await page.goto(`http://127.0.0.1:${basePort + 53}/`);
      const response = await framed;
      // The guard refuses the frame's load (not a top-level navigation), and the refusal may not be framed either.
      expect(response.status()).toBe(403);
      const headers = await response.allHeaders();
      expect(headers["x-frame-options"]).toBe("DENY");
      expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
      // Chromium says why it blocked the frame, and the frame holds its error page, not Baton's: no Approve button to click.
      await expect.poll(() => refusals).toEqual([expect.stringContaining(`"frame-ancestors 'none'"`)]);
      await expect.poll(() => page.frames().map((frame) => frame.url())).toEqual([`http://127.0.0.1:${basePort + 53}/`, "chrome-error://chromewebdata/"]);
      await expect(page.frameLocator("#victim").getByRole("button", { name: "Approve" })).toHaveCount(0);
    } finally {
      hostile.close();
    }
  });

  test.describe("sign-in's next on a BATON_AUTH=required server", () => {
    const port = basePort + 52;
    const origin = `http://127.0.0.1:${port}`;
    let server: ExtraServer;
    let operatorToken: string;

    test.beforeAll(async () => {
      const prepared = prepareDataDir([{ name: "desk", role: "operator" }]);
      operatorToken = prepared.tokens.desk;
      server = await startAndWait({ dataDir: prepared.dataDir, port, env: { BATON_AUTH: "required" } }, async () => (await fetch(`${origin}/sign-in`)).status === 200, "the BATON_AUTH=required server");
    });
    test.afterAll(async () => {
      if (!server) return;
      await stopAndWait(server);
      fs.rmSync(server.dataDir, { recursive: true, force: true });
    });

    for (const next of ["%2F%09%2Fevil.example%2F", "%2F%0A%2Fevil.example%2F", "%2F%2Fevil.example", "%2F%5Cevil.example", "https%3A%2F%2Fevil.example%2F"]) {
      test(`after signing in with next=${next} the browser stays on Baton's origin`, async ({ browser }) => {
        const context = await browser.newContext();
        const page = await context.newPage();
        const left: string[] = [];
        await context.route((url) => url.hostname === "evil.example", (route) => {
          left.push(route.request().url());
          return route.fulfill({ status: 200, contentType: "text/html", body: "<title>evil</title>evil" });
        });
        try {
          await page.goto(`${origin}/sign-in?next=${next}`);
          await signInWith(page, operatorToken);
          await page.waitForURL((url) => url.pathname !== "/sign-in");
          await page.waitForLoadState("load");
          expect(new URL(page.url()).origin).toBe(origin);
          expect(left).toEqual([]);
        } finally {
          await context.close();
        }
      });
    }
  });

  test("every page sends a nonce'd CSP and the dashboard runs under it without a violation", async ({ page, request }) => {
    const created = await request.post("/api/handoffs", { data: { title: "E2E: under CSP", content: "a thread to click through", project: "csp" } });
    expect(created.status()).toBe(201);
    const handoffId = ((await created.json()) as { handoff: { id: string } }).handoff.id;
    expect((await request.post("/api/agents", { data: { personaSlug: "csp-dev", project: "csp" } })).status()).toBe(201);

    const violations: string[] = [];
    page.on("console", (message) => {
      if (message.text().includes("Content Security Policy")) violations.push(message.text());
    });
    page.on("pageerror", (error) => violations.push(`page error: ${error.message}`));
    await page.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (event) =>
        console.error(`Content Security Policy violation on ${location.pathname}: ${event.violatedDirective} ${event.blockedURI} at ${event.sourceFile}:${event.lineNumber}:${event.columnNumber} ${event.sample}`),
      );
    });

    const visit = async (target: Page, url: string) => {
      const response = (await target.goto(url))!;
      const headers = await response.allHeaders();
      const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(headers["content-security-policy"] ?? "")?.[1];
      expect(nonce, `${url}: ${headers["content-security-policy"]}`).toBeTruthy();
      expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
      const scriptSrc = headers["content-security-policy"].split(";").find((directive) => directive.trim().startsWith("script-src"));
      expect(scriptSrc).not.toContain("'unsafe-inline'");
      expect(headers["x-frame-options"]).toBe("DENY");
      expect(headers["x-content-type-options"]).toBe("nosniff");
      expect(headers["referrer-policy"]).toBe("same-origin");
      // Every inline script Next wrote carries this response's nonce (the DOM hides the attribute; the property keeps it).
      const inline = await target.evaluate(() => Array.from(document.scripts, (script) => ({ src: script.src, nonce: script.nonce })));
      expect(inline.length).toBeGreaterThan(0);
      for (const script of inline.filter((script) => !script.src)) expect(script.nonce).toBe(nonce);
      return nonce!;
    };

    const first = await visit(page, "/");
    const second = await visit(page, "/");
    expect(second).not.toBe(first);
    // The history lists the thread; its link is followed by the client-side router.
    await expect(page.locator("time").first()).not.toContainText("UTC");
    await page.locator(`li[data-handoff-id="${handoffId}"]`).getByRole("link").first().click();
    await expect(page).toHaveURL(new RegExp(`/handoffs/${handoffId}`));
    await visit(page, `/handoffs/${handoffId}`);
    // The thread works: an entry posted through the page's form (a server action under the CSP).
    await expect(page.locator("time").first()).not.toContainText("UTC");
    await page.getByRole("textbox", { name: "Content" }).fill("posted under the CSP");
    await page.getByRole("button", { name: "Post entry" }).click();
    await expect(page.locator("li[data-seq]")).toHaveCount(2);
    await expect(page.locator("li[data-seq]").last()).toContainText("posted under the CSP");

    await page.getByRole("link", { name: "Agents" }).first().click();
    await expect(page).toHaveURL(/\/agents/);
    await visit(page, "/agents");
    await expect(page.getByRole("link", { name: "csp-dev" }).first()).toBeVisible();
    for (const url of ["/sign-in", "/settings/tokens", "/settings/webhooks", "/import", "/handoffs/new", "/connect", "/no-such-page"]) await visit(page, url);
    expect(violations).toEqual([]);
  });
});
