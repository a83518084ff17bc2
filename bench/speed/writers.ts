/**
 * Speed part `writers` (5): 32 stdio writer processes × 500 appends on 4 shared threads,
 * `baton mcp` against the floor MCP server doing the same.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { connectStdioClient } from "../../tests/support/mcp-clients";
import { msOf, perS, type Figure } from "../report";
import { median, percentile } from "../support";
import { log, threadOf } from "./common";
import { call, connectFloorMcp } from "./mcp";

/** Named in this part's figures, and so in their targets (bench/targets.ts). */
const WRITERS = 32;
const APPENDS_PER_WRITER = 500;
const SHARED_THREADS = 4;

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

export async function writers(floorEntry: string): Promise<Figure[]> {
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
  const versusFloor = (value: number) => ({ value, label: "floor" });
  return [
    { name: `${WRITERS} writers acks/s`, value: baton.acksPerSecond, unit: "/s", reference: versusFloor(floor.acksPerSecond) },
    { name: `${WRITERS} writers add p99`, value: baton.p99, unit: "ms", reference: versusFloor(floor.p99) },
    { name: `${WRITERS} writers add max`, value: baton.max, unit: "ms", reference: versusFloor(floor.max) },
    { name: `${WRITERS} writers failures`, value: baton.failures, unit: "count", reference: versusFloor(floor.failures) },
  ];
}
