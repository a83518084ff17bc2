/**
 * Live by push (issue 10, point 2; issue 29, point 3): a write made by another OS process → the
 * change event seen by an SSE subscriber of a served dashboard (Baton's own server, guard in
 * front of a production Next build), p50/p99/max, with 1 and with 20 streams open; the same write
 * → `notifications/resources/updated` to an MCP client subscribed to the handoff over stdio (the
 * prebuilt `baton mcp`); and what an idle dashboard asks of the database: every better-sqlite3
 * statement the server process runs is counted while streams sit idle.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import Database from "better-sqlite3";
import { closeDatabase } from "../lib/database";
import { ensureMigrated } from "../lib/database/migrate";
import { ensurePrebuilt } from "../lib/prebuilt/build";
import { startBatonServer } from "../lib/server";
import { connectStdioClient } from "../tests/support/mcp-clients";
import { printReport } from "./report";
import {
  makeTemporaryDataDir,
  measureEventLatency,
  measureLatency,
  now,
  median,
  ms,
  openEventStream,
  percentile,
  projectRoot,
  startLiveWriter,
  type EventStream,
  type LiveWriter,
} from "./support";

const WRITES = 200;
const IDLE_MS = 3000;

/** Counts every statement run in this process, by SQL text: Next's server bundle loads the same better-sqlite3. */
function countStatements(): Map<string, number> {
  const counts = new Map<string, number>();
  const scratch = new Database(":memory:");
  const prototype = Object.getPrototypeOf(scratch.prepare("SELECT 1")) as Record<string, unknown>;
  scratch.close();
  for (const method of ["run", "get", "all", "iterate"]) {
    const original = prototype[method] as (...args: unknown[]) => unknown;
    prototype[method] = function (this: { source: string }, ...args: unknown[]) {
      counts.set(this.source, (counts.get(this.source) ?? 0) + 1);
      return original.apply(this, args);
    };
  }
  return counts;
}


/** Write → `notifications/resources/updated` for `uri`, as `client` (subscribed to it) sees it. */
async function measureResourceLatency(writer: Pick<LiveWriter, "write">, client: Client, uri: string, writes: number): Promise<number[]> {
  const arrivals: number[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    if (notification.params.uri === uri) arrivals.push(now());
  });
  await client.subscribeResource({ uri });
  // The notification can come before the writer reads its clock after the commit (two processes,
  // two clocks): any arrival after the write was asked for counts, as at the commit at the earliest.
  return measureLatency(writer, writes, ({ askedAt, committedAt }) => {
    const at = arrivals.find((arrival) => arrival >= askedAt);
    return at === undefined ? undefined : Math.max(at, committedAt);
  });
}

const summary = (samples: number[]) =>
  `p50 ${ms(median(samples))} · p99 ${ms(percentile(samples, 0.99))} · max ${ms(Math.max(...samples))} (${samples.length} writes)`;

export async function run() {
  const counts = countStatements();
  makeTemporaryDataDir("live");
  await ensureMigrated();
  process.env.BATON_DIST_DIR = ".next-bench";
  process.env.NEXT_TELEMETRY_DISABLED = "1";
  execFileSync(path.join(projectRoot, "node_modules", ".bin", "next"), ["build"], { cwd: projectRoot, env: process.env, stdio: "ignore" });
  const server = await startBatonServer({ dir: projectRoot, host: "127.0.0.1", port: 3903 });
  const streams: EventStream[] = [];
  const writer = { stop: () => {} };
  try {
    const created = await fetch(`${server.url}/api/handoffs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: "Live bench", content: "start" }),
    });
    const { handoff } = (await created.json()) as { handoff: { id: string } };
    const started = startLiveWriter(handoff.id);
    writer.stop = started.stop;
    await started.write(); // the writer's start-up (tsx) is not part of the latency

    const threadUrl = `${server.url}/api/events?handoff=${handoff.id}`;
    streams.push(await openEventStream(threadUrl));
    const one = await measureEventLatency(started, streams[0], WRITES);
    for (let index = 0; index < 19; index++) streams.push(await openEventStream(index % 2 ? threadUrl : `${server.url}/api/events?subject=handoff,entry`));
    const twenty = await measureEventLatency(started, streams[0], WRITES);
    // One verdict, on the worse of the two.
    const p99 = Math.max(percentile(one, 0.99), percentile(twenty, 0.99));
    console.log(`write by another process → SSE event, 1 stream open:   ${summary(one)}`);
    console.log(`write by another process → SSE event, 20 streams open: ${summary(twenty)}`);

    await ensurePrebuilt("mcp");
    const mcp = await connectStdioClient({ entry: "bin" });
    let updated: number[];
    try {
      updated = await measureResourceLatency(started, mcp.client, `baton://handoffs/${handoff.id}`, WRITES);
    } finally {
      await mcp.client.close();
    }
    console.log(`write by another process → MCP resources/updated (stdio): ${summary(updated)}`);
    printReport([
      { name: "write by another process → SSE event p99", value: p99, unit: "ms" },
      { name: "write by another process → MCP resources/updated p99", value: percentile(updated, 0.99), unit: "ms" },
    ]);

    // Idle: 20 streams, then 1, open and nothing written.
    for (const open of [20, 1]) {
      while (streams.length > open) streams.pop()!.close();
      await new Promise((resolve) => setTimeout(resolve, 200));
      counts.clear();
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
      const total = [...counts.values()].reduce((sum, count) => sum + count, 0);
      const bySql = [...counts.entries()].map(([sql, count]) => `${count}× ${sql}`).join("; ");
      console.log(`idle ${IDLE_MS / 1000} s with ${open} stream(s) open: ${total} statements in the server process (${(total / (IDLE_MS / 1000)).toFixed(1)}/s): ${bySql || "none"}`);
    }
    while (streams.length) streams.pop()!.close();
    await new Promise((resolve) => setTimeout(resolve, 300));
    counts.clear();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    console.log(`no stream open, 1 s: ${[...counts.values()].reduce((sum, count) => sum + count, 0)} statements`);
  } finally {
    for (const stream of streams) stream.close();
    writer.stop();
    await server.close();
    await closeDatabase();
  }
}
