/**
 * Speed part `postgres` (10): on a durable PostgreSQL server this part starts (fsync on), REST
 * appends with 16 clients against bench/workers/floor-http-pg.ts (node:http + pg, the same append
 * statement), and stdio add_to_handoff p50 against bench/workers/floor-mcp-pg.ts (the SDK's
 * McpServer + pg running that statement), against Baton without its secret scan and git state,
 * and the statement run bare from this process.
 */
import os from "node:os";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import pg from "pg";
import { closeDatabase } from "../../lib/database";
import { ensureMigrated } from "../../lib/database/migrate";
import { freePort } from "../../tests/support/free-port";
import { connectStdioClient } from "../../tests/support/mcp-clients";
import { startPostgresCluster } from "../../tests/support/postgres-cluster";
import { msOf, perS, type Figure } from "../report";
import { bundleWorker, median, percentile, spawnUntilReady, startProductionServer, timeIt } from "../support";
import { appendQuery } from "../workers/floor-pg-append";
import { DIST_DIR, HTTP_SECONDS, log, STDIO_CALLS, threadOf } from "./common";
import { appended, entryBody, hammer, type Endpoint } from "./http-load";
import { call, connectFloorMcp, withPrebuilt } from "./mcp";

/** The floor's append statement bare, on one pg connection: the floor of a stdio append on PostgreSQL. */
async function bareAppendPg(url: string, id: string, calls: number): Promise<number[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await timeIt(calls, () => client.query(appendQuery(id, "code", "progress", "bench entry")), 20);
  } finally {
    await client.end();
  }
}

/** REST appends, 16 clients, against node:http + pg: three interleaved rounds, so both see the same machine. */
async function restAppends(url: string, build: boolean): Promise<Figure> {
  const floorHttpPg = await bundleWorker("floor-http-pg");
  const [port, floorPort] = [await freePort(), await freePort()];
  const server = await startProductionServer(port, { distDir: DIST_DIR, build });
  const floor = await spawnUntilReady([process.execPath, floorHttpPg], { ...process.env, FLOOR_DATABASE_URL: url, FLOOR_PORT: String(floorPort) });
  try {
    const batonThreads = await Promise.all(Array.from({ length: 16 }, (_, index) => threadOf(1, `PG HTTP ${index}`)));
    const floorThreads = await Promise.all(Array.from({ length: 16 }, (_, index) => threadOf(1, `PG HTTP floor ${index}`)));
    const rest: Endpoint = { label: "REST", port, method: "POST", path: (loop) => `/api/handoffs/${batonThreads[loop]}/entries`, body: entryBody, ok: appended };
    const bare: Endpoint = { label: "floor", port: floorPort, method: "POST", path: (loop) => `/api/handoffs/${floorThreads[loop]}/entries`, body: entryBody, ok: appended };
    for (const endpoint of [rest, bare]) await hammer(endpoint, 16, 1);
    const rates: Record<string, number[]> = { REST: [], floor: [] };
    for (let round = 0; round < 3; round++) {
      for (const endpoint of [rest, bare]) {
        const load = await hammer(endpoint, 16, HTTP_SECONDS);
        rates[endpoint.label].push(load.perSecond);
        log(`  16 clients ${endpoint.label === "REST" ? "Baton REST POST /api/handoffs/<id>/entries" : "bare node:http + pg"} ${perS(load.perSecond).padStart(8)} · p50 ${msOf(load.p50)}${load.failures ? ` · FAILURES ${load.failures} (first: ${load.firstFailure})` : ""}`);
      }
    }
    return { name: "PostgreSQL REST appends 16 clients", value: median(rates.REST), unit: "/s", reference: { value: median(rates.floor), label: "node:http + pg" } };
  } catch (error) {
    log(`\nthe dashboard server's last stderr:\n${server.output()}`);
    throw error;
  } finally {
    await Promise.all([server.stop(), floor.stop()]);
  }
}

/** stdio add_to_handoff: Baton, Baton without the secret scan and git state, the MCP floor and the bare statement, in interleaved rounds. */
async function stdioAppends(url: string): Promise<Figure[]> {
  const [write, leanWrite, floorWrite, bareWrite] = [
    await threadOf(1, "PG stdio write"),
    await threadOf(1, "PG stdio write without secrets and git"),
    await threadOf(1, "PG stdio floor write"),
    await threadOf(1, "PG bare write"),
  ];
  const floorMcpPg = await bundleWorker("floor-mcp-pg");
  return withPrebuilt("PostgreSQL stdio", async () => {
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
      const mcpFloor = { value: floorP50, label: "MCP floor" };
      return [
        { name: "PostgreSQL stdio add_to_handoff p50", value: batonP50, unit: "ms", reference: mcpFloor },
        { name: "PostgreSQL stdio, no secret scan or git state", value: leanP50, unit: "ms", reference: mcpFloor },
        { name: "PostgreSQL stdio MCP floor p50 (no Baton)", value: floorP50, unit: "ms", reference: { value: bareP50, label: "bare pg statement" } },
      ];
    } finally {
      await Promise.all([baton.client.close(), lean.client.close(), floor.client.close()]);
    }
  });
}

/** `build`: whether the dashboard must be built into DIST_DIR first. */
export async function onPostgres(build: boolean): Promise<Figure[]> {
  log(`\n10. PostgreSQL (a durable server of this run's own, fsync on), ${HTTP_SECONDS} s per figure:`);
  const cluster = await startPostgresCluster({ durable: true });
  const sqliteUrl = process.env.DATABASE_URL;
  try {
    const url = await cluster.createDatabase("bench");
    process.env.DATABASE_URL = url;
    await ensureMigrated(url);
    const rest = await restAppends(url, build);
    return [rest, ...(await stdioAppends(url))];
  } finally {
    process.env.DATABASE_URL = sqliteUrl;
    await closeDatabase();
    cluster.destroy();
  }
}
