/**
 * `npm run bench -- speed` (issue 10, point 4): where Baton stands against its floors, every
 * figure next to a reference measured in the same run, ending with a table of the targets.
 *
 * 1. stdio add_to_handoff / get_handoff (300 entries) p50: `node bin/baton.mjs mcp` against
 *    bench/workers/floor-mcp.ts (the SDK's McpServer + raw better-sqlite3, same transactions).
 * 2. HTTP appends/s with 1 and 16 keep-alive clients: REST and MCP against GET /api/health (a
 *    trivial route of the same build) and bench/workers/floor-http.ts (node:http + better-sqlite3).
 * 3. GET / at 10,000 handoffs / 1,000,000 entries and a 10,000-entry thread's page, against the
 *    same pages on the small database before the fill.
 * 4. Resident memory of an idle `baton mcp` and of the dashboard after the HTTP run.
 * 5. 32 stdio writer processes × 500 appends on shared threads, against the floor doing the same.
 * 6. `baton mcp` start-up: empty data folder → first tools/list; warm → initialize.
 * 7. A write by another process → its event seen by an SSE subscriber of the served dashboard.
 * 8. stdio get_handoff (300 entries) with the server's working folder inside the git repository
 *    the thread was recorded in, against the same server outside any repository (issue 19).
 * 9. `baton hook session-start` (Claude Code's SessionStart hook) spawn → exit, against bare
 *    `node -e ''`, with a handoff waiting and with none.
 * 10. On PostgreSQL (a durable server this run starts): REST appends with 16 clients against
 *    bench/workers/floor-http-pg.ts (node:http + pg, the same append statement), and stdio
 *    add_to_handoff p50 against bench/workers/floor-mcp-pg.ts (the SDK's McpServer + pg running
 *    that statement) and against the statement run bare from this process.
 *
 * BATON_BENCH_REUSE_BUILD=1 skips `next build` when .next-bench-speed already holds one.
 * BATON_BENCH_ONLY=stdio,writers (any of stdio, memory, startup, writers, repo, hook, http, pages, live, postgres) runs only
 * those parts, for a quick look while working; the figures of record come from a whole run.
 */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import Database from "better-sqlite3";
import pg from "pg";
import { databaseFile } from "../lib/config";
import { closeDatabase } from "../lib/database";
import { CHECK_INTERVAL_MS } from "../lib/changes";
import { addEntry, createHandoff, getHandoff, markRead } from "../lib/handoffs";
import { connectStdioClient } from "../tests/support/mcp-clients";
import { freePort } from "../tests/support/free-port";
import { startPostgresCluster } from "../tests/support/postgres-cluster";
import { ensureMigrated } from "../lib/database/migrate";
import { ensurePrebuilt } from "../lib/prebuilt/build";
import { freshEntry } from "../lib/prebuilt/prebuilt.mjs";
import {
  bundleWorker,
  makeTemporaryDataDir,
  measureEventLatency,
  median,
  openEventStream,
  percentile,
  projectRoot,
  residentMb,
  spawnUntilReady,
  startLiveWriter,
  startProductionServer,
  timeIt,
} from "./support";
import { appendStatement } from "./workers/floor-pg-append";
import { openFloorStore } from "./workers/floor-store";

const STDIO_CALLS = 300;
const THREAD_SIZE = 300;
const HTTP_SECONDS = 5;
const WRITERS = 32;
const APPENDS_PER_WRITER = 500;
const SHARED_THREADS = 4;
const BIG = { handoffs: 10_000, entries: 1_000_000, thread: 10_000 };
const PAGE_RUNS = 20;
const STARTS = 7;
const SSE_WRITES = 200;
const DIST_DIR = ".next-bench-speed";

type Row = { what: string; baton: string; reference: string; ratio: string; target: string; met: "yes" | "NO" | "" };
const rows: Row[] = [];
/** Said under the table: targets this machine keeps out of reach of any server, Baton or not. */
const notes: string[] = [];
const f1 = (value: number) => value.toFixed(1);
const f2 = (value: number) => value.toFixed(2);
const perS = (value: number) => `${Math.round(value).toLocaleString("en")}/s`;
const msOf = (value: number) => `${value < 10 ? f2(value) : f1(value)} ms`;

/** A row whose target is a ceiling on Baton's own figure (a time, a size). */
function ceilingRow(what: string, baton: number, reference: number, referenceLabel: string, unit: (v: number) => string, ceiling: number | null) {
  rows.push({
    what,
    baton: unit(baton),
    reference: `${unit(reference)} ${referenceLabel}`,
    ratio: `×${f2(baton / reference)}`,
    target: ceiling === null ? "" : `≤ ${unit(ceiling)}`,
    met: ceiling === null ? "" : baton <= ceiling ? "yes" : "NO",
  });
  if (ceiling !== null && reference > ceiling) {
    notes.push(`${what}: the ${referenceLabel} alone (${unit(reference)}) is above the target (≤ ${unit(ceiling)}) on this machine, before anything Baton adds`);
  }
}

/** A row whose target is a ceiling on the ratio of Baton's time to the reference's. */
function ratioRow(what: string, baton: number, reference: number, referenceLabel: string, maxRatio: number) {
  const ratio = baton / reference;
  rows.push({ what, baton: msOf(baton), reference: `${msOf(reference)} ${referenceLabel}`, ratio: `×${f2(ratio)}`, target: `≤ ×${f2(maxRatio)}`, met: ratio <= maxRatio ? "yes" : "NO" });
}

/** A row whose target is a floor on Baton's share of the reference's rate. */
function shareRow(what: string, baton: number, reference: number, referenceLabel: string, share: number | null) {
  const ratio = baton / reference;
  rows.push({
    what,
    baton: perS(baton),
    reference: `${perS(reference)} ${referenceLabel}`,
    ratio: `${Math.round(ratio * 100)} %`,
    target: share === null ? "" : `≥ ${Math.round(share * 100)} %`,
    met: share === null ? "" : ratio >= share ? "yes" : "NO",
  });
}

const log = (line: string) => console.log(line);

/**
 * Runs `measure` with the prebuilt `baton mcp` current. A source edited meanwhile (a shared
 * checkout) makes `baton mcp` fall back to tsx, which is slower and larger: the figures then say so.
 */
async function withPrebuilt<T>(what: string, measure: () => Promise<T>): Promise<T> {
  await ensurePrebuilt("mcp");
  const result = await measure();
  if (!freshEntry("mcp")) log(`  WARNING: a source changed during "${what}": some baton mcp processes may have run through tsx, not the prebuilt server`);
  return result;
}
const loadAverage = () => fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const contentOf = (index: number) => `entry ${index} `.repeat(10);

/** A thread of `size` entries written through the domain, read to the end by chat; recorded in `repoPath`'s repository when given. */
async function threadOf(size: number, title: string, repoPath?: string): Promise<string> {
  const { handoff } = await createHandoff({ title, content: contentOf(0), repoPath });
  for (let index = 1; index < size; index++) {
    await addEntry({ id: handoff.id, type: index % 2 ? "progress" : "question", content: contentOf(index), asClient: index % 2 ? "code" : "chat" });
  }
  await markRead({ id: handoff.id, asClient: "chat" });
  return handoff.id;
}

// ---------------------------------------------------------------------------------------------
// stdio

/** A floor MCP server (bench/workers/floor-mcp*.ts, bundled) over stdio; its store comes from `env` (default: this run's SQLite file). */
async function connectFloorMcp(entry: string, env: Record<string, string> = { FLOOR_DATABASE: databaseFile() }): Promise<{ client: Client; pid: number }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [entry],
    env: { ...(process.env as Record<string, string>), ...env },
    cwd: projectRoot,
    stderr: "pipe",
  });
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(transport);
  return { client, pid: transport.pid! };
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content).slice(0, 300)}`);
  return result;
}

/** Latencies of `calls` calls on each server, in interleaved rounds so both see the same load. */
async function interleaved(servers: Client[], name: string, argsOf: (server: number) => Record<string, unknown>, calls: number): Promise<number[][]> {
  const samples = servers.map(() => [] as number[]);
  for (let warm = 0; warm < 20; warm++) for (let index = 0; index < servers.length; index++) await call(servers[index], name, argsOf(index));
  const round = 30;
  for (let done = 0; done < calls; done += round) {
    for (let index = 0; index < servers.length; index++) {
      for (let step = 0; step < round; step++) {
        const start = performance.now();
        await call(servers[index], name, argsOf(index));
        samples[index].push(performance.now() - start);
      }
    }
  }
  return samples;
}

async function stdioLatency(floorEntry: string) {
  log(`\n1. stdio, one client, ${STDIO_CALLS} calls each (interleaved rounds of 30):`);
  const [batonRead, floorRead, batonWrite, floorWrite] = [
    await threadOf(THREAD_SIZE, "Baton read"),
    await threadOf(THREAD_SIZE, "Floor read"),
    await threadOf(1, "Baton write"),
    await threadOf(1, "Floor write"),
  ];
  const baton = await connectStdioClient({ entry: "bin" });
  const floor = await connectFloorMcp(floorEntry);
  try {
    const first = await call(baton.client, "get_handoff", { id: batonRead });
    const answer = first.structuredContent as { entries: unknown[]; truncated: boolean };
    if (answer.entries.length !== THREAD_SIZE || answer.truncated) throw new Error(`get_handoff carried ${answer.entries.length} entries: not the whole thread, so not the floor's work`);
    const [batonAdd, floorAdd] = await interleaved([baton.client, floor.client], "add_to_handoff", (index) => ({
      id: index === 0 ? batonWrite : floorWrite,
      type: "progress",
      content: "bench entry",
    }), STDIO_CALLS);
    const [batonGet, floorGet] = await interleaved([baton.client, floor.client], "get_handoff", (index) => ({ id: index === 0 ? batonRead : floorRead }), STDIO_CALLS);
    for (const [label, b, fl] of [["add_to_handoff", batonAdd, floorAdd], ["get_handoff (300)", batonGet, floorGet]] as const) {
      log(`  ${label.padEnd(18)} Baton p50 ${msOf(median(b))} p99 ${msOf(percentile(b, 0.99))} · floor p50 ${msOf(median(fl))} p99 ${msOf(percentile(fl, 0.99))} · ×${f2(median(b) / median(fl))}`);
    }
    await inProcess(batonRead, floorRead, batonWrite, floorWrite);
    ceilingRow("stdio add_to_handoff p50", median(batonAdd), median(floorAdd), "floor", msOf, 0.8);
    ceilingRow("stdio get_handoff 300 entries p50", median(batonGet), median(floorGet), "floor", msOf, 2.5);
  } finally {
    await Promise.all([baton.client.close(), floor.client.close()]);
  }
  return batonRead;
}

/** The same work without MCP or stdio: the domain functions against the floor's store, in this process. */
async function inProcess(batonRead: string, floorRead: string, batonWrite: string, floorWrite: string) {
  const store = openFloorStore(databaseFile());
  const add = {
    baton: await timeIt(STDIO_CALLS, () => addEntry({ id: batonWrite, type: "progress", content: "bench entry" }), 20),
    floor: await timeIt(STDIO_CALLS, async () => store.append(floorWrite, "chat", "progress", "bench entry"), 20),
  };
  const get = {
    baton: await timeIt(STDIO_CALLS, () => getHandoff({ id: batonRead }), 20),
    floor: await timeIt(STDIO_CALLS, async () => store.read(floorRead), 20),
  };
  log(`  in process (no MCP): addEntry ${msOf(median(add.baton))} vs floor ${msOf(median(add.floor))} · getHandoff ${msOf(median(get.baton))} vs floor ${msOf(median(get.floor))}`);
  store.close();
}

/** Resident memory of a server left idle after initialize and one call. */
async function idleMemory(floorEntry: string, readThread: string) {
  const baton = await connectStdioClient({ entry: "bin" });
  const floor = await connectFloorMcp(floorEntry);
  try {
    await call(baton.client, "get_handoff", { id: readThread });
    await call(floor.client, "get_handoff", { id: readThread });
    await sleep(1_500);
    const batonMb = residentMb(baton.pid);
    const floorMb = residentMb(floor.pid);
    log(`\n4a. idle stdio server after initialize + one get_handoff: baton mcp ${f1(batonMb)} MB · floor ${f1(floorMb)} MB`);
    ceilingRow("idle baton mcp resident memory", batonMb, floorMb, "floor", (v) => `${f1(v)} MB`, 90);
  } finally {
    await Promise.all([baton.client.close(), floor.client.close()]);
  }
}

// ---------------------------------------------------------------------------------------------
// contention

type ContentionResult = { acksPerSecond: number; p50: number; p99: number; max: number; failures: number; firstFailure: string; firstCallMax: number };

async function contention(connect: () => Promise<Client>, threads: string[]): Promise<ContentionResult> {
  const clients = await Promise.all(Array.from({ length: WRITERS }, connect));
  // Each writer's first call, timed apart: it loads the domain while 31 other processes start.
  const firstCalls = await Promise.all(
    clients.map(async (client, writer) => {
      const sent = performance.now();
      await call(client, "get_handoff", { id: threads[writer % threads.length] });
      return performance.now() - sent;
    }),
  );
  const latencies: number[] = [];
  let failures = 0;
  let firstFailure = "";
  const start = performance.now();
  try {
    await Promise.all(
      clients.map(async (client, writer) => {
        for (let index = 0; index < APPENDS_PER_WRITER; index++) {
          const sent = performance.now();
          try {
            const result = await client.callTool({
              name: "add_to_handoff",
              arguments: { id: threads[(writer + index) % threads.length], type: "progress", content: `writer ${writer} append ${index}`, as_client: writer % 2 ? "code" : "chat" },
            });
            if (result.isError) throw new Error(JSON.stringify(result.content).slice(0, 300));
            latencies.push(performance.now() - sent);
          } catch (error) {
            failures++;
            firstFailure ||= (error as Error).message;
          }
        }
      }),
    );
  } finally {
    await Promise.all(clients.map((client) => client.close()));
  }
  const seconds = (performance.now() - start) / 1000;
  return { acksPerSecond: latencies.length / seconds, p50: median(latencies), p99: percentile(latencies, 0.99), max: Math.max(...latencies), failures, firstFailure, firstCallMax: Math.max(...firstCalls) };
}

async function writers(floorEntry: string) {
  log(`\n5. ${WRITERS} stdio writer processes × ${APPENDS_PER_WRITER} appends on ${SHARED_THREADS} shared threads:`);
  const batonThreads = await Promise.all(Array.from({ length: SHARED_THREADS }, (_, index) => threadOf(1, `Contention ${index}`)));
  const floorThreads = await Promise.all(Array.from({ length: SHARED_THREADS }, (_, index) => threadOf(1, `Floor contention ${index}`)));
  const baton = await contention(async () => (await connectStdioClient({ entry: "bin" })).client, batonThreads);
  const floor = await contention(async () => (await connectFloorMcp(floorEntry)).client, floorThreads);
  for (const [label, result] of [["baton mcp", baton], ["floor    ", floor]] as const) {
    log(
      `  ${label} ${perS(result.acksPerSecond)} acks · p50 ${msOf(result.p50)} · p99 ${msOf(result.p99)} · max ${msOf(result.max)} · failures ${result.failures} · slowest first call (get_handoff, before the timed run) ${msOf(result.firstCallMax)}` +
        (result.firstFailure ? ` (first: ${result.firstFailure})` : ""),
    );
  }
  shareRow(`${WRITERS} writers acks/s`, baton.acksPerSecond, floor.acksPerSecond, "floor", null);
  ceilingRow(`${WRITERS} writers add p99`, baton.p99, floor.p99, "floor", msOf, 100);
  ceilingRow(`${WRITERS} writers add max`, baton.max, floor.max, "floor", msOf, 1000);
  rows.push({ what: `${WRITERS} writers failures`, baton: String(baton.failures), reference: `${floor.failures} floor`, ratio: "", target: "0", met: baton.failures === 0 ? "yes" : "NO" });
}

// ---------------------------------------------------------------------------------------------
// start-up

const INITIALIZE = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } } };
const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };
const TOOLS_LIST = { jsonrpc: "2.0", id: 2, method: "tools/list" };

/** A process that answers the first line it reads: what spawning Node costs on this machine at this moment. */
const BARE_NODE = ["-e", 'process.stdin.once("data", () => process.stdout.write(\'{"id":1}\\n\'))'];

/**
 * Milliseconds from spawn to the answer to `initialize` or, with `toolsList`, to the first
 * `tools/list` (sent, as a client does, once `initialize` is answered).
 */
async function startTime(args: string[], env: NodeJS.ProcessEnv, toolsList: boolean, stayFor = 0): Promise<number> {
  const start = performance.now();
  const child = spawn(process.execPath, args, { cwd: projectRoot, env, stdio: ["pipe", "pipe", "ignore"] });
  child.stdin.write(`${JSON.stringify(INITIALIZE)}\n`);
  let buffered = "";
  const elapsed = await new Promise<number>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited (${code}) before answering`)));
    child.stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      if (!toolsList && buffered.includes('"id":1')) resolve(performance.now() - start);
      else if (toolsList && buffered.includes('"id":1') && !buffered.includes("sent-list")) {
        buffered += "sent-list";
        child.stdin.write(`${JSON.stringify(INITIALIZED)}\n${JSON.stringify(TOOLS_LIST)}\n`);
      } else if (toolsList && buffered.includes('"id":2')) resolve(performance.now() - start);
    });
  });
  child.removeAllListeners("exit");
  await sleep(stayFor);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.stdin.end();
  await exited;
  return elapsed;
}

async function startUp(floorEntry: string) {
  log(`\n6. baton mcp start-up (median of ${STARTS}, interleaved):`);
  const baton = [path.join(projectRoot, "bin", "baton.mjs"), "mcp"];
  const migrated = { ...process.env };
  const emptyFolder = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-bench-empty-"));
    return { ...process.env, BATON_DATA_DIR: dir, DATABASE_URL: `file:${path.join(dir, "baton.db")}` };
  };
  // The first start after a build writes V8's code cache (2 s after start-up) that later ones use.
  await startTime(baton, migrated, false, 3_000);
  const samples = { empty: [] as number[], migratedList: [] as number[], warm: [] as number[], floor: [] as number[], node: [] as number[] };
  const folders: string[] = [];
  for (let round = 0; round < STARTS; round++) {
    const empty = emptyFolder();
    folders.push(empty.BATON_DATA_DIR!);
    samples.empty.push(await startTime(baton, empty, true));
    samples.migratedList.push(await startTime(baton, migrated, true));
    samples.warm.push(await startTime(baton, migrated, false));
    samples.floor.push(await startTime([floorEntry], { ...process.env, FLOOR_DATABASE: databaseFile() }, false));
    samples.node.push(await startTime(BARE_NODE, process.env, false));
  }
  for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
  log(`  empty folder → first tools/list ${msOf(median(samples.empty))} · migrated folder → first tools/list ${msOf(median(samples.migratedList))}`);
  log(
    `  migrated folder → initialize ${msOf(median(samples.warm))} · floor MCP server → initialize ${msOf(median(samples.floor))} · ` +
      `bare node answering one line (this machine's floor now) ${msOf(median(samples.node))}`,
  );
  ceilingRow("first baton mcp (empty folder) → tools/list", median(samples.empty), median(samples.migratedList), "migrated", msOf, 700);
  ceilingRow("warm baton mcp → initialize", median(samples.warm), median(samples.node), "bare node", msOf, 400);
}

// ---------------------------------------------------------------------------------------------
// HTTP

type Target = {
  label: string;
  port: number;
  method: "GET" | "POST";
  /** Each loop appends to its own thread. */
  path: (loop: number) => string;
  body?: (loop: number, request: number) => string;
  ok: (status: number, body: string) => boolean;
};
type Load = { perSecond: number; p50: number; failures: number; firstFailure: string };

function send(agent: http.Agent, target: Target, path: string, body: string | undefined): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: http.OutgoingHttpHeaders = { accept: "application/json, text/event-stream" };
    if (body !== undefined) {
      headers["content-type"] = "application/json";
      headers["content-length"] = Buffer.byteLength(body);
    }
    const request = http.request({ host: "127.0.0.1", port: target.port, path, method: target.method, agent, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end(body);
  });
}

/** `clients` loops on keep-alive connections, each sending its next request when the last is answered, for `seconds`. */
async function hammer(target: Target, clients: number, seconds: number): Promise<Load> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const latencies: number[] = [];
  let failures = 0;
  let firstFailure = "";
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, loop) => {
      const path = target.path(loop);
      for (let request = 0; performance.now() < end; request++) {
        const sent = performance.now();
        try {
          const answer = await send(agent, target, path, target.body?.(loop, request));
          if (!target.ok(answer.status, answer.body)) throw new Error(`${answer.status} ${answer.body.slice(0, 300)}`);
          latencies.push(performance.now() - sent);
        } catch (error) {
          failures++;
          firstFailure ||= (error as Error).message;
        }
      }
    }),
  );
  agent.destroy();
  const elapsed = (performance.now() - start) / 1000;
  return { perSecond: latencies.length / elapsed, p50: latencies.length ? median(latencies) : NaN, failures, firstFailure };
}

async function httpAppends(port: number, floorPort: number): Promise<Map<string, Load>> {
  log(`\n2. HTTP appends, keep-alive clients, ${HTTP_SECONDS} s per figure (targets interleaved, each warmed up first):`);
  const batonThreads = await Promise.all(Array.from({ length: 16 }, (_, index) => threadOf(1, `HTTP ${index}`)));
  const floorThreads = await Promise.all(Array.from({ length: 16 }, (_, index) => threadOf(1, `HTTP floor ${index}`)));
  const entry = (loop: number, request: number) => JSON.stringify({ type: "progress", content: `loop ${loop} request ${request}`, asClient: "code" });
  const appended = (status: number) => status === 201;
  const targets: Target[] = [
    { label: "trivial", port, method: "GET", path: () => "/api/health", ok: (status) => status === 200 },
    { label: "REST", port, method: "POST", path: (loop) => `/api/handoffs/${batonThreads[loop]}/entries`, body: entry, ok: appended },
    {
      label: "MCP",
      port,
      method: "POST",
      path: () => "/api/mcp",
      body: (loop, request) =>
        JSON.stringify({
          jsonrpc: "2.0",
          id: request + 1,
          method: "tools/call",
          params: { name: "add_to_handoff", arguments: { id: batonThreads[loop], type: "progress", content: `loop ${loop} request ${request}`, as_client: "code" } },
        }),
      ok: (status, body) => status === 200 && body.includes('"result"') && !body.includes('"isError":true'),
    },
    { label: "floor", port: floorPort, method: "POST", path: (loop) => `/api/handoffs/${floorThreads[loop]}/entries`, body: entry, ok: appended },
  ];
  const names: Record<string, string> = {
    trivial: "trivial route GET /api/health",
    REST: "REST POST /api/handoffs/<id>/entries",
    MCP: "MCP add_to_handoff POST /api/mcp",
    floor: "bare node:http + better-sqlite3",
  };
  const results = new Map<string, Load>();
  for (const target of targets) await hammer(target, 16, 1);
  for (const clients of [1, 16]) {
    for (const target of targets) {
      const load = await hammer(target, clients, HTTP_SECONDS);
      results.set(`${target.label}/${clients}`, load);
      log(
        `  ${String(clients).padStart(2)} client${clients > 1 ? "s" : " "} ${names[target.label].padEnd(38)} ${perS(load.perSecond).padStart(8)} · p50 ${msOf(load.p50)}` +
          (load.failures ? ` · FAILURES ${load.failures} (first: ${load.firstFailure})` : ""),
      );
    }
  }
  for (const clients of [1, 16]) {
    const rate = (label: string) => results.get(`${label}/${clients}`)!.perSecond;
    const enforced = clients === 16;
    // Issue 16's targets, against the bare node:http + better-sqlite3 floor: REST ≥ 35 %, MCP ≥ 25 %.
    const floorShare: Record<string, number> = { REST: 0.35, MCP: 0.25 };
    for (const door of ["REST", "MCP"]) {
      shareRow(`HTTP ${door} appends, ${clients} client${clients > 1 ? "s" : ""}, vs trivial`, rate(door), rate("trivial"), "trivial", null);
      shareRow(`HTTP ${door} appends, ${clients} client${clients > 1 ? "s" : ""}, vs bare floor`, rate(door), rate("floor"), "floor", enforced ? floorShare[door] : null);
    }
  }
  const failures = [...results.values()].reduce((sum, load) => sum + load.failures, 0);
  rows.push({ what: "HTTP failed requests", baton: String(failures), reference: "", ratio: "", target: "0", met: failures === 0 ? "yes" : "NO" });
  return results;
}

// ---------------------------------------------------------------------------------------------
// pages at scale

/** Full response time of a GET that must answer 200: a refused or failed request never reads as a fast one. */
function page(agent: http.Agent, url: string): Promise<number> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          if (response.statusCode === 200) resolve(performance.now() - start);
          else reject(new Error(`GET ${url} answered ${response.statusCode}: ${Buffer.concat(chunks).toString().slice(0, 200)}`));
        });
      })
      .on("error", reject);
  });
}

/** Median of PAGE_RUNS, on a keep-alive connection of its own (after five unmeasured requests). */
async function pageTime(url: string): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (let warm = 0; warm < 5; warm++) await page(agent, url);
    const samples: number[] = [];
    for (let run = 0; run < PAGE_RUNS; run++) samples.push(await page(agent, url));
    return median(samples);
  } finally {
    agent.destroy();
  }
}

const iso = (time: number) => new Date(time).toISOString().replace("Z", "+00:00");

/**
 * 10,000 handoffs, 1,000,000 entries on random threads (seqs interleave as in real use) and one
 * thread of 10,000, through SQL in one transaction: fixture generation, not a door.
 */
function fillBig(): string {
  const sqlite = new Database(databaseFile(), { timeout: 10_000 });
  let state = 42;
  const random = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const types = ["context", "task", "progress", "question", "decision", "done"];
  const projects = ["hlg", "dnd", "billing", "infra", "search", "design", "growth", "shop"];
  const start = Date.UTC(2026, 0, 1);
  const ids = Array.from({ length: BIG.handoffs }, (_, index) => `hof_speed${String(index).padStart(16, "0")}`);
  const bigThread = "hof_speedthread0000000000";
  const insertHandoff = sqlite.prepare("INSERT INTO handoffs (id, title, project, status, created_at, updated_at, closed_at) VALUES (?, ?, ?, ?, ?, ?, ?)");
  const insertEntry = sqlite.prepare("INSERT INTO handoff_entries (handoff_id, from_client, type, content, created_at) VALUES (?, ?, ?, ?, ?)");
  sqlite.transaction(() => {
    ids.forEach((id, index) => {
      const created = start + index * 60_000;
      const completed = random() < 0.3;
      insertHandoff.run(id, `Speed thread ${index}: ${types[index % types.length]} work`, projects[index % projects.length], completed ? "completed" : "active", iso(created), iso(created + 3_600_000 * random()), completed ? iso(created + 7_200_000) : null);
    });
    for (let index = 0; index < BIG.entries; index++) {
      insertEntry.run(ids[Math.floor(random() * ids.length)], random() < 0.5 ? "chat" : "code", types[Math.floor(random() * types.length)], `entry ${index} `.repeat(8), iso(start + index * 1000));
    }
    const now = iso(Date.now());
    insertHandoff.run(bigThread, `Speed thread of ${BIG.thread}`, null, "active", now, now, null);
    for (let index = 0; index < BIG.thread; index++) {
      insertEntry.run(bigThread, index % 2 ? "code" : "chat", "progress", `Step ${index}: **progress** on the migration.\n\n- ${"ran the slow query again ".repeat(12)}`, now);
    }
    // Cursors inside each thread, so unread counts are not trivial.
    sqlite.exec(`UPDATE handoffs SET
      chat_last_seen = COALESCE((SELECT seq FROM handoff_entries e WHERE e.handoff_id = handoffs.id ORDER BY seq LIMIT 1 OFFSET 5), 0),
      code_last_seen = COALESCE((SELECT seq FROM handoff_entries e WHERE e.handoff_id = handoffs.id ORDER BY seq LIMIT 1 OFFSET 15), 0)
      WHERE id LIKE 'hof_speed%'`);
  })();
  sqlite.close();
  return bigThread;
}

async function pagesAtScale(baseUrl: string, smallThread: string) {
  log(`\n3. pages, full response on loopback (median of ${PAGE_RUNS}):`);
  const smallHome = await pageTime(`${baseUrl}/`);
  const smallPage = await pageTime(`${baseUrl}/handoffs/${smallThread}`);
  const fillStart = performance.now();
  const bigThread = fillBig();
  log(`  (filled ${BIG.handoffs.toLocaleString("en")} handoffs / ${BIG.entries.toLocaleString("en")} entries + a ${BIG.thread.toLocaleString("en")}-entry thread in ${msOf(performance.now() - fillStart)})`);
  const bigHome = await pageTime(`${baseUrl}/`);
  const bigPage = await pageTime(`${baseUrl}/handoffs/${bigThread}`);
  log(`  GET /                 ${msOf(bigHome)} at 10,000 handoffs / 1,000,000 entries · ${msOf(smallHome)} on the small database`);
  log(`  GET /handoffs/<id>    ${msOf(bigPage)} for 10,000 entries · ${msOf(smallPage)} for ${THREAD_SIZE}`);
  ceilingRow("GET / at 10k handoffs / 1M entries", bigHome, smallHome, "small db", msOf, 100);
  ceilingRow("GET /handoffs/<id>, 10,000 entries", bigPage, smallPage, `${THREAD_SIZE} entries`, msOf, 300);
}

// ---------------------------------------------------------------------------------------------

function printTable() {
  const header: Row = { what: "what", baton: "Baton", reference: "reference (same run)", ratio: "ratio", target: "target", met: "met?" as Row["met"] };
  const columns = Object.keys(header) as (keyof Row)[];
  const widths = columns.map((column) => Math.max(...[header, ...rows].map((row) => row[column].length)));
  const line = (row: Row) => columns.map((column, index) => row[column].padEnd(widths[index])).join(" | ");
  log(`\n${line(header)}\n${widths.map((width) => "-".repeat(width)).join("-|-")}`);
  for (const row of rows) log(line(row));
  for (const note of notes) log(`note: ${note}`);
}

const PARTS = ["stdio", "memory", "startup", "writers", "repo", "hook", "http", "pages", "live", "postgres"] as const;
type Part = (typeof PARTS)[number];

function partsWanted(): Set<Part> {
  const named = (process.env.BATON_BENCH_ONLY ?? "").split(",").map((part) => part.trim()).filter(Boolean);
  const unknown = named.filter((part) => !(PARTS as readonly string[]).includes(part));
  if (unknown.length > 0) throw new Error(`BATON_BENCH_ONLY names ${unknown.join(", ")}; the parts are ${PARTS.join(", ")}`);
  return new Set(named.length > 0 ? (named as Part[]) : PARTS);
}

// ---------------------------------------------------------------------------------------------
// a git repository around the reader; the pickup hook

/** A repository of 20 committed files with `origin` set, in a temporary folder. */
function benchRepository(origin: string): string {
  const repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "baton-bench-repo-")));
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=Bench", "-c", "user.email=bench@baton.invalid", "-c", "commit.gpgsign=false", ...args], { cwd: repo });
  git("init", "-q", "-b", "main");
  git("remote", "add", "origin", origin);
  fs.mkdirSync(path.join(repo, "src"));
  for (let index = 0; index < 20; index++) fs.writeFileSync(path.join(repo, "src", `module${index}.ts`), `export const v = ${index};\n`);
  git("add", ".");
  git("commit", "-q", "-m", "initial");
  return repo;
}

async function readInRepository() {
  log(`\n8. stdio get_handoff (${THREAD_SIZE} entries), ${STDIO_CALLS} calls each (interleaved rounds of 30): the server's working folder inside the git repository the thread was recorded in, and outside any:`);
  const repo = benchRepository("git@github.com:bench/read.git");
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), "baton-bench-outside-"));
  const id = await threadOf(THREAD_SIZE, "Recorded in a repository (see src/module3.ts)", repo);
  const inside = await connectStdioClient({ entry: "bin", cwd: repo });
  const away = await connectStdioClient({ entry: "bin", cwd: outside });
  try {
    for (const client of [inside.client, away.client]) {
      const answer = (await call(client, "get_handoff", { id })).structuredContent as { entries: unknown[]; staleness: unknown };
      if (answer.entries.length !== THREAD_SIZE || answer.staleness !== null) throw new Error("get_handoff did not carry the whole, current thread");
    }
    const [inRepo, outRepo] = await interleaved([inside.client, away.client], "get_handoff", () => ({ id }), STDIO_CALLS);
    log(`  inside the repository p50 ${msOf(median(inRepo))} p99 ${msOf(percentile(inRepo, 0.99))} · outside p50 ${msOf(median(outRepo))} p99 ${msOf(percentile(outRepo, 0.99))} · ×${f2(median(inRepo) / median(outRepo))}`);
    ratioRow("stdio get_handoff 300 entries p50, in its git repository", median(inRepo), median(outRepo), "outside one", 1.3);
  } finally {
    await Promise.all([inside.client.close(), away.client.close()]);
    fs.rmSync(repo, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  }
}

/** Milliseconds from spawning `args` (with `input` on stdin) to its exit, and what it printed. */
function runToExit(args: string[], input: string, cwd: string): Promise<{ ms: number; stdout: string }> {
  const start = performance.now();
  const child = spawn(process.execPath, args, { cwd, env: process.env, stdio: ["pipe", "pipe", "ignore"] });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stdin.end(input);
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", () => resolve({ ms: performance.now() - start, stdout }));
  });
}

async function hookStartUp() {
  log(`\n9. baton hook session-start, spawn → exit (median of ${STARTS}, interleaved with bare node -e ''):`);
  await ensurePrebuilt("hook");
  const waitingRepo = benchRepository("git@github.com:bench/waiting.git");
  const quietRepo = benchRepository("git@github.com:bench/quiet.git");
  const { handoff } = await createHandoff({ title: "Waiting for code", content: "We decided on JWT; start in src/module1.ts.", asClient: "chat", repoPath: waitingRepo });
  await addEntry({ id: handoff.id, type: "task", content: "Refresh tokens for 30 days.", asClient: "chat" });
  const hook = [path.join(projectRoot, "bin", "baton.mjs"), "hook", "session-start"];
  const inputOf = (cwd: string) => JSON.stringify({ session_id: "bench", transcript_path: "/tmp/bench.jsonl", cwd, hook_event_name: "SessionStart", source: "startup" });
  try {
    const picked = await runToExit(hook, inputOf(waitingRepo), waitingRepo);
    if (!picked.stdout.includes(handoff.id)) throw new Error(`the hook did not bring the waiting handoff: ${picked.stdout.slice(0, 300)}`);
    if ((await runToExit(hook, inputOf(quietRepo), quietRepo)).stdout !== "") throw new Error("the hook printed something with nothing waiting");
    const samples = { waiting: [] as number[], quiet: [] as number[], node: [] as number[] };
    for (let round = 0; round < STARTS; round++) {
      samples.waiting.push((await runToExit(hook, inputOf(waitingRepo), waitingRepo)).ms);
      samples.quiet.push((await runToExit(hook, inputOf(quietRepo), quietRepo)).ms);
      samples.node.push((await runToExit(["-e", ""], "", quietRepo)).ms);
    }
    if (!freshEntry("hook")) log("  WARNING: a source changed meanwhile: some hooks may have run through tsx, not the prebuilt hook");
    log(`  a handoff waiting ${msOf(median(samples.waiting))} · nothing waiting ${msOf(median(samples.quiet))} · bare node -e '' ${msOf(median(samples.node))}`);
    ratioRow("hook session-start, a handoff waiting, start → exit", median(samples.waiting), median(samples.node), "bare node", 4);
    ratioRow("hook session-start, nothing waiting, start → exit", median(samples.quiet), median(samples.node), "bare node", 4);
  } finally {
    fs.rmSync(waitingRepo, { recursive: true, force: true });
    fs.rmSync(quietRepo, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// live

/** A write by another process (bench/workers/live-writer.ts) → its event on one SSE subscriber of the served dashboard. */
async function liveEvents(baseUrl: string) {
  log(`\n7. write by another process → SSE event, ${SSE_WRITES} writes at random points of the feed's ${CHECK_INTERVAL_MS} ms check:`);
  const { handoff } = await createHandoff({ title: "Live", content: "start" });
  const writer = startLiveWriter(handoff.id);
  try {
    await writer.write(); // the writer's start-up (tsx) is not part of the latency
    const stream = await openEventStream(`${baseUrl}/api/events?handoff=${handoff.id}`);
    try {
      const samples = await measureEventLatency(writer, stream, SSE_WRITES);
      log(`  p50 ${msOf(median(samples))} · p99 ${msOf(percentile(samples, 0.99))} · max ${msOf(Math.max(...samples))}`);
      ceilingRow("write by another process → SSE event p50", median(samples), CHECK_INTERVAL_MS, "check interval", msOf, null);
      ceilingRow("write by another process → SSE event p99", percentile(samples, 0.99), CHECK_INTERVAL_MS, "check interval", msOf, 250);
    } finally {
      stream.close();
    }
  } finally {
    writer.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL

/** The append statement bare, on one pg connection: the floor of a stdio append on PostgreSQL. */
async function bareAppendPg(url: string, id: string, calls: number): Promise<number[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await timeIt(calls, () => client.query({ name: "append", text: appendStatement("code_last_seen"), values: [id, "code", "progress", "bench entry", new Date().toISOString()] }), 20);
  } finally {
    await client.end();
  }
}

async function onPostgres(build: boolean) {
  log(`\n10. PostgreSQL (a durable server of this run's own, fsync on), ${HTTP_SECONDS} s per figure:`);
  const cluster = await startPostgresCluster({ durable: true });
  const sqliteUrl = process.env.DATABASE_URL;
  try {
    const url = await cluster.createDatabase("bench");
    process.env.DATABASE_URL = url;
    await ensureMigrated(url);
    const floorHttpPg = await bundleWorker("floor-http-pg");
    const [port, floorPort] = [await freePort(), await freePort()];
    const server = await startProductionServer(port, { distDir: DIST_DIR, build });
    const floor = await spawnUntilReady([process.execPath, floorHttpPg], { ...process.env, FLOOR_DATABASE_URL: url, FLOOR_PORT: String(floorPort) });
    try {
      const batonThreads = await Promise.all(Array.from({ length: 16 }, (_, index) => threadOf(1, `PG HTTP ${index}`)));
      const floorThreads = await Promise.all(Array.from({ length: 16 }, (_, index) => threadOf(1, `PG HTTP floor ${index}`)));
      const entry = (loop: number, request: number) => JSON.stringify({ type: "progress", content: `loop ${loop} request ${request}`, asClient: "code" });
      const appended = (status: number) => status === 201;
      const rest: Target = { label: "REST", port, method: "POST", path: (loop) => `/api/handoffs/${batonThreads[loop]}/entries`, body: entry, ok: appended };
      const bare: Target = { label: "floor", port: floorPort, method: "POST", path: (loop) => `/api/handoffs/${floorThreads[loop]}/entries`, body: entry, ok: appended };
      for (const target of [rest, bare]) await hammer(target, 16, 1);
      const rates: Record<string, number[]> = { REST: [], floor: [] };
      // Three interleaved rounds: both see the same machine.
      for (let round = 0; round < 3; round++) {
        for (const target of [rest, bare]) {
          const load = await hammer(target, 16, HTTP_SECONDS);
          rates[target.label].push(load.perSecond);
          log(`  16 clients ${target.label === "REST" ? "Baton REST POST /api/handoffs/<id>/entries" : "bare node:http + pg"} ${perS(load.perSecond).padStart(8)} · p50 ${msOf(load.p50)}${load.failures ? ` · FAILURES ${load.failures} (first: ${load.firstFailure})` : ""}`);
        }
      }
      shareRow("PostgreSQL REST appends 16 clients", median(rates.REST), median(rates.floor), "node:http + pg", 0.35);
    } catch (error) {
      log(`\nthe dashboard server's last stderr:\n${server.output()}`);
      throw error;
    } finally {
      await Promise.all([server.stop(), floor.stop()]);
    }
    const [write, leanWrite, floorWrite, bareWrite] = [
      await threadOf(1, "PG stdio write"),
      await threadOf(1, "PG stdio write without secrets and git"),
      await threadOf(1, "PG stdio floor write"),
      await threadOf(1, "PG bare write"),
    ];
    const floorMcpPg = await bundleWorker("floor-mcp-pg");
    await withPrebuilt("PostgreSQL stdio", async () => {
      const baton = await connectStdioClient({ entry: "bin", env: { DATABASE_URL: url } });
      // What two of an append's features cost: the secret scan (BATON_SECRETS=off) and the git
      // state a code-side write records (a working folder outside any repository).
      const lean = await connectStdioClient({ entry: "bin", env: { DATABASE_URL: url, BATON_SECRETS: "off" }, cwd: os.tmpdir() });
      const floor = await connectFloorMcp(floorMcpPg, { FLOOR_DATABASE_URL: url });
      try {
        // Interleaved rounds, as in part 1: every server and the bare statement see the same machine.
        const add = (client: Client, id: string) => () => call(client, "add_to_handoff", { id, type: "progress", content: "bench entry", as_client: "code" });
        const samples = { baton: [] as number[], lean: [] as number[], floor: [] as number[], bare: [] as number[] };
        for (let round = 0; round < STDIO_CALLS / 30; round++) {
          samples.baton.push(...(await timeIt(30, add(baton.client, write), round ? 0 : 20)));
          samples.lean.push(...(await timeIt(30, add(lean.client, leanWrite), round ? 0 : 20)));
          samples.floor.push(...(await timeIt(30, add(floor.client, floorWrite), round ? 0 : 20)));
          samples.bare.push(...(await bareAppendPg(url, bareWrite, 30)));
        }
        const [batonP50, leanP50, floorP50, bareP50] = [median(samples.baton), median(samples.lean), median(samples.floor), median(samples.bare)];
        log(
          `  stdio add_to_handoff p50 ${msOf(batonP50)} p99 ${msOf(percentile(samples.baton, 0.99))} · without the secret scan and git state p50 ${msOf(leanP50)}` +
            ` · MCP floor (the SDK's stdio server + pg, the same statement) p50 ${msOf(floorP50)} · the statement bare p50 ${msOf(bareP50)}`,
        );
        ceilingRow("PostgreSQL stdio add_to_handoff p50", batonP50, floorP50, "MCP floor", msOf, 2);
        ceilingRow("PostgreSQL stdio, no secret scan or git state", leanP50, floorP50, "MCP floor", msOf, null);
        ceilingRow("PostgreSQL stdio MCP floor p50 (no Baton)", floorP50, bareP50, "bare pg statement", msOf, null);
      } finally {
        await Promise.all([baton.client.close(), lean.client.close(), floor.client.close()]);
      }
    });
  } finally {
    process.env.DATABASE_URL = sqliteUrl;
    await closeDatabase();
    cluster.destroy();
  }
}

export async function run(): Promise<void> {
  const wanted = partsWanted();
  const loadAtStart = loadAverage();
  log(`load average at start: ${loadAtStart} (${os.cpus().length} cores)`);
  const dataDir = makeTemporaryDataDir("speed");
  await ensureMigrated();
  const floorMcp = await bundleWorker("floor-mcp");
  const floorHttp = await bundleWorker("floor-http");
  const reuse = process.env.BATON_BENCH_REUSE_BUILD === "1" && fs.existsSync(path.join(projectRoot, DIST_DIR, "BUILD_ID"));
  try {
    const readThread = wanted.has("stdio") ? await withPrebuilt("stdio latency", () => stdioLatency(floorMcp)) : await threadOf(THREAD_SIZE, "Baton read");
    if (wanted.has("memory")) await withPrebuilt("idle memory", () => idleMemory(floorMcp, readThread));
    if (wanted.has("startup")) await withPrebuilt("start-up", () => startUp(floorMcp));
    if (wanted.has("writers")) await withPrebuilt("writers", () => writers(floorMcp));
    if (wanted.has("repo")) await withPrebuilt("get_handoff in a repository", () => readInRepository());
    if (wanted.has("hook")) await hookStartUp();
    let built = reuse;
    if (wanted.has("http") || wanted.has("pages") || wanted.has("live")) {
      await onSqliteServer(wanted, readThread, floorHttp, !built);
      built = true;
    }
    if (wanted.has("postgres")) await onPostgres(!built);
  } finally {
    await closeDatabase();
    fs.rmSync(dataDir, { recursive: true, force: true });
    printTable();
  }
  log(`\nload average at start ${loadAtStart}, at end ${loadAverage()}`);
}

/** Parts 2, 3, 4b and 7: the served dashboard on SQLite. */
async function onSqliteServer(wanted: Set<Part>, readThread: string, floorHttp: string, build: boolean) {
  log(`\n(${build ? "building" : "reusing"} the dashboard into ${DIST_DIR}…)`);
  const [port, floorPort] = [await freePort(), await freePort()];
  const server = await startProductionServer(port, { distDir: DIST_DIR, build });
  const floor = await spawnUntilReady([process.execPath, floorHttp], { ...process.env, FLOOR_DATABASE: databaseFile(), FLOOR_PORT: String(floorPort) });
  try {
    if (wanted.has("http")) {
      await httpAppends(port, floorPort);
      const dashboardMb = residentMb(server.pid);
      const floorMb = residentMb(floor.pid);
      log(`\n4b. after the HTTP run: dashboard server ${f1(dashboardMb)} MB resident · bare floor ${f1(floorMb)} MB`);
      ceilingRow("dashboard resident memory after HTTP run", dashboardMb, floorMb, "floor", (v) => `${f1(v)} MB`, 300);
    }
    if (wanted.has("pages")) await pagesAtScale(server.baseUrl, readThread);
    if (wanted.has("live")) await liveEvents(server.baseUrl);
  } catch (error) {
    log(`\nthe dashboard server's last stderr:\n${server.output()}`);
    throw error;
  } finally {
    await Promise.all([server.stop(), floor.stop()]);
  }
}
