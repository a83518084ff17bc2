/**
 * MCP door (issue 4, acceptance 6): stdio cold start (spawn → `initialize` answered) through the
 * prebuilt server and through tsx, against a bare `node` that answers one line (this machine's
 * floor at this moment), and the median latency of add_to_handoff and get_handoff on a
 * 300-entry thread over stdio and over HTTP (Baton's own server, the guard and the router, without Next).
 */
import { spawn } from "node:child_process";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { addEntry, createHandoff } from "../lib/handoffs";
import { ensurePrebuilt } from "../lib/prebuilt/build";
import { serveApi } from "../tests/support/api-server";
import { connectHttpClient, connectStdioClient } from "../tests/support/mcp-clients";
import { closeDatabase } from "../lib/database";
import { ensureMigrated } from "../lib/database/migrate";
import { median, ms, projectRoot, timeIt, makeTemporaryDataDir } from "./support";

const COLD_STARTS = 9;
const CALLS = 60;
const THREAD_SIZE = 300;

const initialize = `${JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
})}\n`;

/** Milliseconds from spawn to the first line on stdout (the `initialize` answer). */
async function coldStart(args: string[], stayFor = 0): Promise<number> {
  const start = performance.now();
  const child = spawn(process.execPath, args, { cwd: projectRoot, stdio: ["pipe", "pipe", "ignore"] });
  child.stdin.write(initialize);
  await new Promise((resolve) => child.stdout.once("data", resolve));
  const elapsed = performance.now() - start;
  await new Promise((resolve) => setTimeout(resolve, stayFor));
  child.stdin.end();
  await new Promise((resolve) => child.once("exit", resolve));
  return elapsed;
}

const FLOOR = ["-e", 'process.stdin.once("data", () => process.stdout.write("{}\\n"))'];
const LAUNCH = [path.join(projectRoot, "lib", "mcp", "launch.mjs")];
const TSX = [path.join(projectRoot, "bin", "baton.mjs"), "mcp"];

async function threadOf(size: number): Promise<string> {
  const { handoff } = await createHandoff({ title: `Bench ${size}`, content: "entry 0" });
  for (let index = 1; index < size; index++) {
    await addEntry({ id: handoff.id, type: index % 2 ? "progress" : "question", content: `entry ${index} `.repeat(20), asClient: index % 2 ? "code" : "chat" });
  }
  return handoff.id;
}

async function callLatency(client: Client, name: string, args: Record<string, unknown>): Promise<number> {
  const samples = await timeIt(CALLS, async () => {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  });
  return median(samples);
}

export async function run(): Promise<void> {
  makeTemporaryDataDir("mcp");
  await ensureMigrated();
  await ensurePrebuilt("mcp");

  // Interleaved, so each kind sees the same machine load.
  const starts = { floor: [] as number[], launch: [] as number[], tsx: [] as number[] };
  // The first start after a build writes V8's code cache (2 s after start-up) that later ones use.
  await coldStart(LAUNCH, 3_000);
  for (let round = 0; round < COLD_STARTS; round++) {
    starts.floor.push(await coldStart(FLOOR));
    starts.launch.push(await coldStart(LAUNCH));
    starts.tsx.push(await coldStart(TSX));
  }
  const floor = median(starts.floor);
  const launch = median(starts.launch);
  const tsx = median(starts.tsx);
  console.log(`stdio cold start, spawn → initialize answered (median of ${COLD_STARTS}):`);
  console.log(`  bare node answering one line (machine floor)   ${ms(floor)}`);
  console.log(`  node lib/mcp/launch.mjs (prebuilt + code cache)  ${ms(launch)}   ${(launch - floor).toFixed(1)} ms above the floor`);
  console.log(`  node bin/baton.mjs mcp (tsx + TypeScript)       ${ms(tsx)}   ratio tsx/bundle ${(tsx / launch).toFixed(2)}`);

  const readThread = await threadOf(THREAD_SIZE);
  const writeThread = await threadOf(THREAD_SIZE);
  const http = await serveApi();
  const stdio = await connectStdioClient({ entry: "launch" });
  const overHttp = await connectHttpClient(`${http.origin}/api/mcp`);
  try {
    const results = {
      stdio: {
        get: await callLatency(stdio.client, "get_handoff", { id: readThread }),
        add: await callLatency(stdio.client, "add_to_handoff", { id: writeThread, type: "progress", content: "bench entry" }),
      },
      http: {
        get: await callLatency(overHttp, "get_handoff", { id: readThread }),
        add: await callLatency(overHttp, "add_to_handoff", { id: writeThread, type: "progress", content: "bench entry" }),
      },
    };
    console.log(`tool call latency on a ${THREAD_SIZE}-entry thread (median of ${CALLS}):`);
    console.log(`  get_handoff     stdio ${ms(results.stdio.get)}   http ${ms(results.http.get)}   http/stdio ${(results.http.get / results.stdio.get).toFixed(2)}`);
    console.log(`  add_to_handoff  stdio ${ms(results.stdio.add)}   http ${ms(results.http.add)}   http/stdio ${(results.http.add / results.stdio.add).toFixed(2)}`);
  } finally {
    await Promise.all([stdio.client.close(), overHttp.close()]);
    await http.close();
    await closeDatabase();
  }
}
