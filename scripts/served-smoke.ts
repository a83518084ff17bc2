/**
 * `npm start`'s server, run by whichever Node runs this script, answers as users meet it: the
 * health check, the desk's home page, a handoff made over REST and its page, and an MCP
 * `tools/list` over Streamable HTTP. `npm test` runs it on the other LTS line (scripts/test-all.ts)
 * against the build its e2e run made, and on PostgreSQL (`--postgres`: a cluster of its own), where
 * the pages are the only test of Next's bundle of the database code on that engine. Exit 0 only
 * when all answer and Next's compiler stayed unloaded; the server (and the cluster) are stopped
 * either way, the server with its whole process group.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "../tests/support/free-port";
import { startPostgresCluster, type PostgresCluster } from "../tests/support/postgres-cluster";

const root = path.resolve(import.meta.dirname, "..");
const distDir = process.env.BATON_DIST_DIR;
if (!distDir) throw new Error("BATON_DIST_DIR names the build to serve");

const port = await freePort();
const origin = `http://127.0.0.1:${port}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-served-smoke-"));
const env: NodeJS.ProcessEnv = { ...process.env, HOST: "127.0.0.1", PORT: String(port), BATON_DATA_DIR: dataDir, BATON_SKIP_BUILD: "1", BATON_DIST_DIR: distDir };
delete env.DATABASE_URL;
const cluster: PostgresCluster | null = process.argv.includes("--postgres") ? await startPostgresCluster() : null;
if (cluster) {
  env.DATABASE_URL = await cluster.createDatabase("served_smoke").catch((error: unknown) => {
    cluster.destroy();
    throw error;
  });
}
const engine = cluster ? "PostgreSQL" : "SQLite";
const server = spawn(process.execPath, [path.join(root, "scripts", "start.mjs")], { cwd: root, env, detached: true, stdio: ["ignore", "inherit", "inherit"] });
const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));

async function until<T>(what: string, attempt: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (server.exitCode !== null || server.signalCode !== null) throw new Error(`${what}: the server exited (${server.exitCode ?? server.signalCode})`);
    const value = await attempt().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: no answer within ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function mcp(body: object): Promise<string> {
  const response = await fetch(`${origin}/api/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", ...body }),
  });
  if (!response.ok) throw new Error(`MCP ${JSON.stringify(body).slice(0, 60)}: HTTP ${response.status}`);
  return response.text();
}

let failure: unknown;
try {
  await until("GET /api/health", async () => ((await fetch(`${origin}/api/health`)).ok ? true : undefined));
  const home = await fetch(`${origin}/`);
  const page = await home.text();
  if (home.status !== 200 || !page.includes("<title>")) throw new Error(`GET /: HTTP ${home.status}`);
  const title = `Served smoke on ${engine}`;
  const created = await fetch(`${origin}/api/handoffs`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title, content: "first entry" }) });
  if (created.status !== 201) throw new Error(`POST /api/handoffs: HTTP ${created.status} ${await created.text()}`);
  const { handoff } = (await created.json()) as { handoff: { id: string } };
  const thread = await fetch(`${origin}/handoffs/${handoff.id}`);
  if (thread.status !== 200 || !(await thread.text()).includes(title)) throw new Error(`GET /handoffs/${handoff.id}: HTTP ${thread.status}, or without its title`);
  await mcp({ id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "served-smoke", version: "1" } } });
  const tools = await mcp({ id: 2, method: "tools/list" });
  if (!tools.includes("add_to_handoff")) throw new Error("MCP tools/list: add_to_handoff is missing");
  // start.mjs hands Next the configuration the build resolved: SWC, which compiles next.config.ts, is never loaded.
  if (process.platform === "linux" && fs.readFileSync(`/proc/${server.pid}/maps`, "utf8").includes("next-swc")) {
    throw new Error("npm start loaded Next's SWC binding: it compiled next.config.ts instead of reading the build's configuration");
  }
  console.log(`served on Node ${process.versions.node} and ${engine}: health, the desk, a thread's page and MCP tools/list answer; next.config.ts was not compiled`);
} catch (error) {
  failure = error;
} finally {
  if (server.exitCode === null && server.signalCode === null && server.pid) process.kill(-server.pid, "SIGTERM");
  await exited;
  cluster?.destroy();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
if (failure) {
  console.error(`served smoke on Node ${process.versions.node} and ${engine}: ${failure instanceof Error ? failure.message : String(failure)}`);
  process.exit(1);
}
