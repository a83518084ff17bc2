import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { chromium, expect, test, type Browser } from "@playwright/test";
import { startPostgresCluster, type PostgresCluster } from "../tests/support/postgres-cluster";
import { rawRequest } from "../tests/support/raw-http";
import { signInWith, startAndWait, stopAndWait, waitUntil, type ExtraServer } from "./support/extra-server";
import { scratchDir } from "./support/scratch";

/**
 * Two instances behind Caddy and behind nginx, each configured exactly as the README's *Running
 * it for a team* says (its blocks, with only the addresses and the listening port replaced), and
 * started as it says: no BATON_AUTH=required. The proxies run on this machine, so every request
 * reaches Baton from loopback: the guard must still count it as remote. Chromium reaches each
 * proxy by the public name (a host-resolver rule maps it to loopback).
 */
const root = path.resolve(import.meta.dirname, "..");
const basePort = Number(process.env.BATON_E2E_PORT || 3100);
const [portA, portB] = [basePort + 70, basePort + 71];
const publicName = "baton.example.com";
test.describe.configure({ mode: "serial" });
test.setTimeout(180_000);

const scratch = scratchDir("proxy-");

/** One of the README's fenced blocks in the team section, as a newcomer would copy it. */
function readmeBlock(language: "nginx" | ""): string {
  const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
  const team = readme.slice(readme.indexOf("## Running it for a team"), readme.indexOf("<!-- /section: team -->"));
  const block = new RegExp("```" + language + "\\n([\\s\\S]*?)```").exec(team.slice(team.indexOf("Put a reverse")))?.[1];
  if (!block) throw new Error(`README.md's team section has no ${language || "Caddy"} block`);
  return block;
}

/** The block's two upstream addresses replaced by this run's instances. */
function withInstances(block: string): string {
  const upstreams = [...block.matchAll(/\b10\.0\.0\.\d+:\d+\b/g)].map((match) => match[0]);
  expect(upstreams).toHaveLength(2);
  return block.replace(upstreams[0], `127.0.0.1:${portA}`).replace(upstreams[1], `127.0.0.1:${portB}`);
}

type Proxy = { name: string; port: number; binary: string; package: string; start: () => ChildProcess; process?: ChildProcess; log?: string };

const proxies: Proxy[] = [
  {
    name: "Caddy",
    port: basePort + 72,
    binary: "/usr/bin/caddy",
    package: "caddy",
    start() {
      const block = withInstances(readmeBlock(""));
      expect(block).toMatch(new RegExp(`^${publicName} \\{`));
      // Plain HTTP on a loopback port: Caddy would fetch a certificate for the bare name.
      const site = block.replace(`${publicName} {`, `http://${publicName}:${this.port} {\n  bind 127.0.0.1`);
      const file = path.join(scratch, "Caddyfile");
      fs.writeFileSync(file, `{\n  admin off\n}\n${site}`);
      const home = path.join(scratch, "caddy-home");
      return spawn(this.binary, ["run", "--config", file, "--adapter", "caddyfile"], {
        detached: true,
        stdio: ["ignore", "ignore", "pipe"],
        env: { ...process.env, HOME: home, XDG_DATA_HOME: home, XDG_CONFIG_HOME: home },
      });
    },
  },
  {
    name: "nginx",
    port: basePort + 73,
    binary: "/usr/sbin/nginx",
    package: "nginx-light",
    start() {
      const block = withInstances(readmeBlock("nginx"));
      expect(block).toMatch(/listen 443 ssl;/);
      const temp = path.join(scratch, "nginx-temp");
      fs.mkdirSync(temp, { recursive: true });
      const config = [
        "daemon off;",
        // Started as root, nginx runs its workers as nobody, who cannot write the temp folder made
        // here: a body past nginx's in-memory buffer (the import past 1 MiB) was its own 500.
        ...(process.getuid?.() === 0 ? ["user root;"] : []),
        `pid ${path.join(scratch, "nginx.pid")};`,
        `error_log ${path.join(scratch, "nginx-error.log")};`,
        "events {}",
        "http {",
        "  access_log off;",
        ...["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((kind) => `  ${kind}_temp_path ${temp};`),
        block.replace(/listen 443 ssl;/, `listen 127.0.0.1:${this.port};`),
        "}",
      ].join("\n");
      const file = path.join(scratch, "nginx.conf");
      fs.writeFileSync(file, config);
      return spawn(this.binary, ["-c", file, "-p", scratch, "-e", path.join(scratch, "nginx-error.log")], { detached: true, stdio: ["ignore", "ignore", "pipe"] });
    },
  },
];

let cluster: PostgresCluster;
let teamUrl: string;
let token: string;
let browser: Browser;
const servers: ExtraServer[] = [];

/** A request to `proxy` as a client that resolved the public name: Host names it. */
const through = (proxy: Proxy, method: string, url: string, headers: Record<string, string> = {}, body?: string, from?: string) =>
  rawRequest(`http://127.0.0.1:${proxy.port}`, method, url, { host: `${publicName}:${proxy.port}`, ...headers }, body, from);

const bearer = () => ({ authorization: `Bearer ${token}` });
const handoffTotal = async () => {
  const response = await fetch(`http://127.0.0.1:${portB}/api/handoffs`, { headers: bearer() });
  return ((await response.json()) as { total: number }).total;
};

/** An instance on `port`, started as the README says. */
const startInstance = (port: number) =>
  startAndWait(
    // BATON_TRUSTED_PROXIES as the README says: the proxy's address (here loopback's 127.0.0.1), so
    // clients on 127.0.0.2 and beyond are clients, not proxies.
    { dataDir: fs.mkdtempSync(path.join(scratch, "instance-")), port, env: { DATABASE_URL: teamUrl, BATON_ALLOWED_HOSTS: publicName, BATON_TRUSTED_PROXIES: "127.0.0.1" } },
    async () => (await fetch(`http://127.0.0.1:${port}/api/health`)).ok,
    `Baton on ${port}`,
  );

test.beforeAll(async () => {
  for (const proxy of proxies) {
    if (!fs.existsSync(proxy.binary)) throw new Error(`${proxy.binary} is missing: install Debian's ${proxy.package} (.ci/run does)`);
  }
  cluster = await startPostgresCluster();
  teamUrl = await cluster.createDatabase("proxied");
  // The README's step 3: a token, then each instance with the public name. BATON_PUBLIC_URL is
  // left out: it only shapes OAuth metadata, which these tests do not reach, and two proxies make two origins.
  const env = { ...process.env, DATABASE_URL: teamUrl, BATON_DATA_DIR: scratch };
  token = execFileSync(process.execPath, ["bin/baton.mjs", "token", "create", "--name", "ops", "--role", "operator"], { cwd: root, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  for (const port of [portA, portB]) servers.push(await startInstance(port));
  for (const proxy of proxies) {
    proxy.process = proxy.start();
    proxy.log = "";
    proxy.process.stderr?.on("data", (chunk: Buffer) => (proxy.log += chunk.toString()));
    await waitUntil(async () => (await through(proxy, "GET", "/api/health")).status === 200, `${proxy.name} on ${proxy.port}`, 30_000).catch((error: Error) => {
      throw new Error(`${error.message}: ${proxy.log?.trim().split("\n").slice(-2).join(" / ")}`);
    });
  }
  const { launchOptions } = test.info().project.use;
  browser = await chromium.launch({ ...launchOptions, args: [...(launchOptions?.args ?? []), `--host-resolver-rules=MAP ${publicName} 127.0.0.1`] });
});

test.afterAll(async () => {
  await browser?.close();
  for (const proxy of proxies) {
    try {
      if (proxy.process?.pid) process.kill(-proxy.process.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  for (const server of servers) await stopAndWait(server);
  cluster?.destroy();
  fs.rmSync(scratch, { recursive: true, force: true });
});

for (const proxy of proxies) {
  test(`through ${proxy.name} as the README configures it, the open desk stays closed: no token, no data; health answers for the load balancer`, async () => {
    expect(await through(proxy, "GET", "/api/health")).toMatchObject({ status: 200, body: JSON.stringify({ ok: true, database: "up" }) });
    const before = await handoffTotal();
    for (const url of ["/api/handoffs", "/api/agents", "/api/events"]) {
      expect((await through(proxy, "GET", url)).status, url).toBe(401);
    }
    const json = { "content-type": "application/json" };
    expect((await through(proxy, "POST", "/api/handoffs", json, JSON.stringify({ title: "Through the proxy", content: "no token" }))).status).toBe(401);
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "create_handoff", arguments: { title: "x", content: "y" } } };
    expect((await through(proxy, "POST", "/api/mcp", { ...json, accept: "application/json, text/event-stream" }, JSON.stringify(call))).status).toBe(401);
    expect(await handoffTotal()).toBe(before);
    // A page sends the browser to sign in rather than serving the desk.
    const page = await through(proxy, "GET", "/");
    expect([302, 303, 307]).toContain(page.status);

    // With the token the same proxy serves, round robin over both instances.
    for (let index = 0; index < 4; index++) {
      const created = await through(proxy, "POST", "/api/handoffs", { ...bearer(), ...json }, JSON.stringify({ title: `Through ${proxy.name} ${index}`, content: "with a token" }));
      expect(created.status).toBe(201);
    }
    expect(await handoffTotal()).toBe(before + 4);
  });

  test(`through ${proxy.name}, a body as large as Baton takes reaches it: an import past nginx's default 1 MiB`, async () => {
    // A document under the formats' 1 MiB whose JSON escapes make a 1.2 MB body (imports take up
    // to 4 MiB); a dry run, so Baton answers its verdict (200) and stores nothing.
    const body = JSON.stringify({ text: "a\n".repeat(400_000), dryRun: true });
    expect(body.length).toBeGreaterThan(1024 * 1024);
    const answer = await through(proxy, "POST", "/api/import", { ...bearer(), "content-type": "application/json" }, body);
    expect(answer.status, answer.body.slice(0, 200)).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ ok: false });
  });

  test(`an operator signs in through ${proxy.name} by the public name and sees writes on either instance live`, async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const origin = `http://${publicName}:${proxy.port}`;
    await page.goto(`${origin}/`);
    await expect(page).toHaveURL(/\/sign-in/);
    await signInWith(page, token);
    await expect(page).toHaveURL(`${origin}/`);
    // Written beside the proxy, on each instance: the page's live updates (SSE streamed through
    // the proxy) bring both without a reload.
    for (const port of [portA, portB]) {
      const title = `Live through ${proxy.name} from ${port}`;
      const response = await fetch(`http://127.0.0.1:${port}/api/handoffs`, {
        method: "POST",
        headers: { ...bearer(), "content-type": "application/json" },
        body: JSON.stringify({ title, content: "first" }),
      });
      expect(response.status).toBe(201);
      await expect(page.getByRole("link", { name: title })).toBeVisible();
    }
    await context.close();
  });

  test(`through ${proxy.name}, client registration is limited per client, not per proxy: a flood from one client leaves the next able to register`, async () => {
    const [flooder, next] = proxy.name === "Caddy" ? ["127.0.0.2", "127.0.0.3"] : ["127.0.0.4", "127.0.0.5"];
    const json = { "content-type": "application/json" };
    const body = JSON.stringify({ client_name: `Flood via ${proxy.name}`, redirect_uris: ["https://claude.ai/api/mcp/auth_callback"], token_endpoint_auth_method: "none" });
    const statuses: number[] = [];
    // Each with a forged X-Forwarded-For: a proxy passes it on to the left of the real peer, so it buys no fresh bucket.
    // Thirty: past both instances' limits (10 a minute each, counted apart behind round robin).
    for (let index = 0; index < 30; index++) {
      statuses.push((await through(proxy, "POST", "/oauth/register", { ...json, "x-forwarded-for": `203.0.113.${index}` }, body, flooder)).status);
    }
    expect(statuses.filter((status) => status === 201).length).toBeLessThanOrEqual(20);
    expect(statuses.slice(-5)).toEqual([429, 429, 429, 429, 429]);
    // Another client of the same proxy (claude.ai's next connector) is not in the flooder's bucket.
    for (let attempt = 0; attempt < 2; attempt++) expect((await through(proxy, "POST", "/oauth/register", json, body, next)).status).toBe(201);
  });
}

test("with one instance stopped (SIGTERM), both proxies go on through the other, reads and writes", async () => {
  expect(await stopAndWait(servers[0])).toBe("exited");
  servers.shift();
  for (const proxy of proxies) {
    for (let index = 0; index < 4; index++) {
      const read = await through(proxy, "GET", "/api/handoffs?limit=1", bearer());
      expect(read.status, `${proxy.name} read ${index}`).toBe(200);
      const title = `After the stop, ${proxy.name} ${index}`;
      const written = await through(proxy, "POST", "/api/handoffs", { ...bearer(), "content-type": "application/json" }, JSON.stringify({ title, content: "still served" }));
      expect(written.status, `${proxy.name} write ${index}: ${proxy.log?.trim().split("\n").slice(-3).join(" / ")}`).toBe(201);
      // A write that reached the stopped instance first is sent again whole to the other.
      expect((JSON.parse(written.body) as { handoff: { title: string } }).handoff.title).toBe(title);
    }
  }
});

test("with every instance stopped, a page open through each proxy keeps what it shows (the proxy's 502 for its stream reloads nothing) and is live again once an instance is back", async () => {
  const pages = [];
  for (const proxy of proxies) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const origin = `http://${publicName}:${proxy.port}`;
    await page.goto(`${origin}/`);
    await signInWith(page, token);
    await expect(page).toHaveURL(`${origin}/`);
    await expect(page.getByTestId("live-status")).toHaveAttribute("data-live-path", "stream");
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
    pages.push({ proxy, page, context });
  }
  expect(await stopAndWait(servers[0])).toBe("exited");
  servers.shift();
  for (const { proxy, page } of pages) {
    await expect(page.getByTestId("live-status")).toHaveAttribute("data-live-path", "reconnecting");
    expect((await through(proxy, "GET", "/api/health")).status).toBe(502);
  }
  for (const { proxy, page } of pages) {
    // Ten seconds after the drop the page polls: each poll would re-render the page, which the proxy answers 502.
    await expect(page.getByTestId("live-status")).toHaveAttribute("data-live-path", "polling", { timeout: 15_000 });
    await page.waitForTimeout(6000);
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded), proxy.name).toBe(true);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  }
  servers.push(await startInstance(portB));
  const title = "Written once an instance is back";
  const response = await fetch(`http://127.0.0.1:${portB}/api/handoffs`, { method: "POST", headers: { ...bearer(), "content-type": "application/json" }, body: JSON.stringify({ title, content: "back" }) });
  expect(response.status).toBe(201);
  for (const { proxy, page, context } of pages) {
    await expect(page.getByRole("link", { name: title }), proxy.name).toBeVisible({ timeout: 30_000 });
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded), proxy.name).toBe(true);
    await context.close();
  }
});
