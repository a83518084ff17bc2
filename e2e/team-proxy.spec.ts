import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { chromium, expect, test, type Browser } from "@playwright/test";
import { startPostgresCluster, type PostgresCluster } from "../tests/support/postgres-cluster";
import { signInWith, startAndWait, stopAndWait, waitUntil, type ExtraServer } from "./support/extra-server";

/**
 * Two instances behind nginx, configured exactly as the README's *Running it for a team* says
 * (its nginx block, with only the addresses and the listening port replaced), and started as it
 * says: no BATON_AUTH=required. The proxy runs on this machine, so every request reaches Baton
 * from loopback: the guard must still count it as remote. Chromium reaches the proxy by its
 * public name (a host-resolver rule maps it to loopback).
 */
const root = path.resolve(import.meta.dirname, "..");
const basePort = Number(process.env.BATON_E2E_PORT || 3100);
const [portA, portB, proxyPort] = [basePort + 70, basePort + 71, basePort + 72];
const publicName = "baton.example.com";
const publicHost = `${publicName}:${proxyPort}`;
const NGINX = "/usr/sbin/nginx";
test.describe.configure({ mode: "serial" });
test.setTimeout(180_000);

let cluster: PostgresCluster;
let teamUrl: string;
let token: string;
let proxy: ChildProcess;
let browser: Browser;
const servers: ExtraServer[] = [];
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "baton-proxy-"));

/** The README's nginx block for the team section, as a newcomer would copy it. */
function readmeNginxBlock(): string {
  const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
  const team = readme.slice(readme.indexOf("## Running it for a team"), readme.indexOf("<!-- /section: team -->"));
  const block = /```nginx\n([\s\S]*?)```/.exec(team)?.[1];
  if (!block) throw new Error("README.md's team section has no nginx block");
  return block;
}

/** That block on this machine: the two instances' addresses, a loopback port without TLS. */
function nginxConfig(): string {
  let block = readmeNginxBlock();
  const upstreams = [...block.matchAll(/server (\d+\.\d+\.\d+\.\d+:\d+);/g)].map((match) => match[1]);
  expect(upstreams).toHaveLength(2);
  block = block.replace(upstreams[0], `127.0.0.1:${portA}`).replace(upstreams[1], `127.0.0.1:${portB}`);
  expect(block).toMatch(/listen 443 ssl;/);
  block = block.replace(/listen 443 ssl;/, `listen 127.0.0.1:${proxyPort};`);
  const temp = path.join(scratch, "temp");
  fs.mkdirSync(temp, { recursive: true });
  return [
    "daemon off;",
    `pid ${path.join(scratch, "nginx.pid")};`,
    `error_log ${path.join(scratch, "error.log")};`,
    "events {}",
    "http {",
    "  access_log off;",
    ...["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((kind) => `  ${kind}_temp_path ${temp};`),
    block,
    "}",
  ].join("\n");
}

/** A request to the proxy as a client that resolved the public name: Host names it. */
function throughProxy(method: string, url: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: "127.0.0.1", port: proxyPort, method, path: url, headers: { host: publicHost, ...headers } }, (response) => {
      let text = "";
      response.on("data", (chunk: Buffer) => (text += chunk.toString()));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    request.on("error", reject);
    request.end(body);
  });
}

const bearer = () => ({ authorization: `Bearer ${token}` });
const handoffTotal = async () => {
  const response = await fetch(`http://127.0.0.1:${portA}/api/handoffs`, { headers: bearer() });
  return ((await response.json()) as { total: number }).total;
};

test.beforeAll(async () => {
  if (!fs.existsSync(NGINX)) throw new Error(`${NGINX} is missing: install Debian's nginx-light (.ci/run does)`);
  cluster = await startPostgresCluster();
  teamUrl = await cluster.createDatabase("proxied");
  const env = { ...process.env, DATABASE_URL: teamUrl, BATON_DATA_DIR: scratch };
  // The README's step 3: a token, then each instance with the public URL and name.
  token = execFileSync(process.execPath, ["bin/baton.mjs", "token", "create", "--name", "ops", "--role", "operator"], { cwd: root, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  for (const port of [portA, portB]) {
    const server = await startAndWait(
      {
        dataDir: fs.mkdtempSync(path.join(scratch, "instance-")),
        port,
        env: { DATABASE_URL: teamUrl, BATON_PUBLIC_URL: `http://${publicHost}`, BATON_ALLOWED_HOSTS: publicName },
      },
      async () => (await fetch(`http://127.0.0.1:${port}/api/health`)).ok,
      `Baton on ${port}`,
    );
    servers.push(server);
  }
  const config = path.join(scratch, "nginx.conf");
  fs.writeFileSync(config, nginxConfig());
  proxy = spawn(NGINX, ["-c", config, "-p", scratch, "-e", path.join(scratch, "error.log")], { detached: true, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  proxy.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  await waitUntil(async () => (await throughProxy("GET", "/api/health")).status === 200, `nginx on ${proxyPort} (${stderr.trim()})`, 30_000);
  const { launchOptions } = test.info().project.use;
  browser = await chromium.launch({ ...launchOptions, args: [...(launchOptions?.args ?? []), `--host-resolver-rules=MAP ${publicName} 127.0.0.1`] });
});

test.afterAll(async () => {
  await browser?.close();
  if (proxy?.pid) {
    try {
      process.kill(-proxy.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  for (const server of servers) await stopAndWait(server);
  cluster?.destroy();
  fs.rmSync(scratch, { recursive: true, force: true });
});

test("through nginx as the README configures it, the open desk stays closed: no token, no data; health answers for the load balancer", async () => {
  expect(await throughProxy("GET", "/api/health")).toEqual({ status: 200, body: JSON.stringify({ ok: true, database: "up" }) });
  const before = await handoffTotal();
  for (const url of ["/api/handoffs", "/api/agents", "/api/events"]) {
    expect((await throughProxy("GET", url)).status, url).toBe(401);
  }
  const post = await throughProxy("POST", "/api/handoffs", { "content-type": "application/json" }, JSON.stringify({ title: "Through the proxy", content: "no token" }));
  expect(post.status).toBe(401);
  const mcp = await throughProxy(
    "POST",
    "/api/mcp",
    { "content-type": "application/json", accept: "application/json, text/event-stream" },
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "create_handoff", arguments: { title: "x", content: "y" } } }),
  );
  expect(mcp.status).toBe(401);
  expect(await handoffTotal()).toBe(before);
  // A page asks the browser to sign in rather than serving the desk.
  const page = await throughProxy("GET", "/");
  expect(page.status).toBeGreaterThanOrEqual(300);
  expect(page.status).toBeLessThan(400);

  // With the token, the same proxy serves, round robin over both instances.
  const created = await throughProxy("POST", "/api/handoffs", { ...bearer(), "content-type": "application/json" }, JSON.stringify({ title: "Through the proxy", content: "with a token" }));
  expect(created.status).toBe(201);
  expect(await handoffTotal()).toBe(before + 1);
});

test("an operator signs in through the proxy's public name; a write on either instance shows live through it; with one instance stopped the proxy goes on", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`http://${publicHost}/`);
  await expect(page).toHaveURL(/\/sign-in/);
  await signInWith(page, token);
  await expect(page).toHaveURL(`http://${publicHost}/`);

  // Written beside the proxy, on each instance: the page's live updates (SSE through nginx,
  // buffering off) bring both without a reload.
  for (const [port, title] of [[portA, "Live through the proxy from A"], [portB, "Live through the proxy from B"]] as const) {
    const response = await fetch(`http://127.0.0.1:${port}/api/handoffs`, {
      method: "POST",
      headers: { ...bearer(), "content-type": "application/json" },
      body: JSON.stringify({ title, content: "first" }),
    });
    expect(response.status).toBe(201);
    await expect(page.getByRole("link", { name: title })).toBeVisible();
  }

  // SIGTERM on A: nginx passes every request to B, the signed-in page keeps working.
  expect(await stopAndWait(servers[0])).toBe("exited");
  servers.shift();
  for (let index = 0; index < 4; index++) expect((await throughProxy("GET", "/api/health")).status).toBe(200);
  await page.reload();
  await expect(page.getByRole("link", { name: "Live through the proxy from A" })).toBeVisible();
  await context.close();
});
