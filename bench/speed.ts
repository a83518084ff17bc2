/**
 * `npm run bench -- speed` (issue 10, point 4): where Baton stands against its floors, every
 * figure next to a reference measured in the same run, ending with one table of the figures and
 * their targets (bench/targets.ts, printed by bench/report.ts). Each part is a file of
 * bench/speed/ and returns its figures:
 *
 * 1. stdio.ts: stdio add_to_handoff / get_handoff (300 entries) p50: `node bin/baton.mjs mcp`
 *    against bench/workers/floor-mcp.ts (the SDK's McpServer + raw better-sqlite3, same transactions).
 * 2. http.ts: HTTP appends/s with 1 and 16 keep-alive clients: REST and MCP against GET /api/health
 *    (a trivial route of the same build), bench/workers/floor-http.ts (node:http + better-sqlite3 on
 *    Baton's schema) and bench/workers/floor-http-minimal.ts (node:http + better-sqlite3 doing only
 *    the seed's check, insert and cursor update on a minimal table).
 * 3. pages.ts: GET / at 10,000 handoffs / 1,000,000 entries and a 10,000-entry thread's page,
 *    against the same pages on the small database before the fill.
 * 4. memory.ts: resident memory of an idle `baton mcp`; http.ts: of the dashboard after the HTTP run.
 * 5. writers.ts: 32 stdio writer processes × 500 appends on shared threads, against the floor doing the same.
 * 6. startup.ts: `baton mcp` start-up: empty data folder → first tools/list; warm → initialize.
 * 7. live.ts: a write by another process → its event seen by an SSE subscriber of the served dashboard.
 * 8. repo.ts: stdio get_handoff (300 entries) with the server's working folder inside the git
 *    repository the thread was recorded in, against the same server outside any repository (issue 19).
 * 9. hook.ts: `baton hook session-start` (Claude Code's SessionStart hook) spawn → exit, against
 *    bare `node -e ''`, with a handoff waiting and with none.
 * 10. postgres.ts: on PostgreSQL (a durable server this run starts): REST appends with 16 clients
 *    against bench/workers/floor-http-pg.ts (node:http + pg, the same append statement), and stdio
 *    add_to_handoff p50 against bench/workers/floor-mcp-pg.ts (the SDK's McpServer + pg running
 *    that statement) and against the statement run bare from this process.
 * 11. seed.ts: stdio add_to_handoff and get_handoff (300 entries) p50 and p95, and spawn → first
 *    tools/list, against the seed's own server (project-brain), both in one git repository (issue 29).
 *
 * BATON_BENCH_REUSE_BUILD=1 skips `next build` when .next-bench-speed already holds one.
 * BATON_BENCH_ONLY=stdio,writers (any of stdio, memory, startup, writers, repo, hook, http, pages, live, postgres, seed) runs only
 * those parts, for a quick look while working; the figures of record come from a whole run.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { databaseFile } from "../lib/config";
import { closeDatabase } from "../lib/database";
import { ensureMigrated } from "../lib/database/migrate";
import { freePort } from "../tests/support/free-port";
import { printReport, type Figure } from "./report";
import { DIST_DIR, log, THREAD_SIZE, threadOf } from "./speed/common";
import { hookStartUp } from "./speed/hook";
import { httpAppends } from "./speed/http";
import { liveEvents } from "./speed/live";
import { withPrebuilt } from "./speed/mcp";
import { idleMemory } from "./speed/memory";
import { pagesAtScale } from "./speed/pages";
import { onPostgres } from "./speed/postgres";
import { readInRepository } from "./speed/repo";
import { againstSeed } from "./speed/seed";
import { startUp } from "./speed/startup";
import { stdioLatency } from "./speed/stdio";
import { writers } from "./speed/writers";
import { bundleWorker, makeTemporaryDataDir, projectRoot, spawnUntilReady, startProductionServer } from "./support";

const PARTS = ["stdio", "memory", "startup", "writers", "repo", "hook", "http", "pages", "live", "postgres", "seed"] as const;
type Part = (typeof PARTS)[number];

function partsWanted(): Set<Part> {
  const named = (process.env.BATON_BENCH_ONLY ?? "").split(",").map((part) => part.trim()).filter(Boolean);
  const unknown = named.filter((part) => !(PARTS as readonly string[]).includes(part));
  if (unknown.length > 0) throw new Error(`BATON_BENCH_ONLY names ${unknown.join(", ")}; the parts are ${PARTS.join(", ")}`);
  return new Set(named.length > 0 ? (named as Part[]) : PARTS);
}

const loadAverage = () => fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

export async function run(): Promise<void> {
  const wanted = partsWanted();
  const loadAtStart = loadAverage();
  log(`load average at start: ${loadAtStart} (${os.cpus().length} cores)`);
  const dataDir = makeTemporaryDataDir("speed");
  await ensureMigrated();
  const floorMcp = await bundleWorker("floor-mcp");
  const floorHttp = await bundleWorker("floor-http");
  const floorHttpMinimal = await bundleWorker("floor-http-minimal");
  const reuse = process.env.BATON_BENCH_REUSE_BUILD === "1" && fs.existsSync(path.join(projectRoot, DIST_DIR, "BUILD_ID"));
  const figures: Figure[] = [];
  try {
    const readThread = await threadOf(THREAD_SIZE, "Baton read");
    if (wanted.has("stdio")) figures.push(...(await withPrebuilt("stdio latency", () => stdioLatency(floorMcp, readThread))));
    if (wanted.has("memory")) figures.push(...(await withPrebuilt("idle memory", () => idleMemory(floorMcp, readThread))));
    if (wanted.has("startup")) figures.push(...(await withPrebuilt("start-up", () => startUp(floorMcp))));
    if (wanted.has("writers")) figures.push(...(await withPrebuilt("writers", () => writers(floorMcp))));
    if (wanted.has("repo")) figures.push(...(await withPrebuilt("get_handoff in a repository", () => readInRepository())));
    if (wanted.has("hook")) figures.push(...(await hookStartUp()));
    if (wanted.has("seed")) figures.push(...(await withPrebuilt("against the seed's server", () => againstSeed())));
    let built = reuse;
    if (wanted.has("http") || wanted.has("pages") || wanted.has("live")) {
      await onSqliteServer(wanted, readThread, { floorHttp, floorHttpMinimal }, !built, figures);
      built = true;
    }
    if (wanted.has("postgres")) figures.push(...(await onPostgres(!built)));
  } finally {
    await closeDatabase();
    fs.rmSync(dataDir, { recursive: true, force: true });
    printReport(figures);
  }
  log(`\nload average at start ${loadAtStart}, at end ${loadAverage()}`);
}

/** Parts http (2, 4b), pages (3) and live (7): the served dashboard on SQLite. Each part's figures join `figures` as it ends. */
async function onSqliteServer(
  wanted: Set<Part>,
  readThread: string,
  workers: { floorHttp: string; floorHttpMinimal: string },
  build: boolean,
  figures: Figure[],
): Promise<void> {
  log(`\n(${build ? "building" : "reusing"} the dashboard into ${DIST_DIR}…)`);
  const [port, floorPort, minimalPort] = [await freePort(), await freePort(), await freePort()];
  const server = await startProductionServer(port, { distDir: DIST_DIR, build });
  const floor = await spawnUntilReady([process.execPath, workers.floorHttp], { ...process.env, FLOOR_DATABASE: databaseFile(), FLOOR_PORT: String(floorPort) });
  // The minimal floor keeps its own file and threads (its table is not Baton's).
  const minimalThreads = Array.from({ length: 16 }, (_, index) => `minimal-${index}`);
  const minimal = await spawnUntilReady([process.execPath, workers.floorHttpMinimal], {
    ...process.env,
    FLOOR_DATABASE: path.join(path.dirname(databaseFile()), "floor-minimal.db"),
    FLOOR_HANDOFFS: minimalThreads.join(","),
    FLOOR_PORT: String(minimalPort),
  });
  try {
    if (wanted.has("http")) {
      figures.push(...(await httpAppends({ port, pid: server.pid }, { port: floorPort, pid: floor.pid }, { port: minimalPort, pid: minimal.pid, threads: minimalThreads })));
    }
    if (wanted.has("pages")) figures.push(...(await pagesAtScale(server.baseUrl, readThread)));
    if (wanted.has("live")) figures.push(...(await liveEvents(server.baseUrl)));
  } catch (error) {
    log(`\nthe dashboard server's last stderr:\n${server.output()}`);
    throw error;
  } finally {
    await Promise.all([server.stop(), floor.stop(), minimal.stop()]);
  }
}
