/**
 * MCP over stdio for the speed parts: the floor servers (bench/workers/floor-mcp*.ts), a checked
 * tool call, calls timed in interleaved rounds, and measuring with the prebuilt `baton mcp` current.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { databaseFile } from "../../lib/config";
import { ensurePrebuilt } from "../../lib/prebuilt/build";
import { freshEntry } from "../../lib/prebuilt/prebuilt.mjs";
import { projectRoot } from "../support";
import { log } from "./common";

/** A floor MCP server (bench/workers/floor-mcp*.ts, bundled) over stdio; its store comes from `env` (default: this run's SQLite file). */
export async function connectFloorMcp(entry: string, env: Record<string, string> = { FLOOR_DATABASE: databaseFile() }): Promise<{ client: Client; pid: number }> {
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

export async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content).slice(0, 300)}`);
  return result;
}

/** Latencies of `calls` calls on each server, in interleaved rounds so both see the same load. */
export async function interleaved(servers: Client[], name: string, argsOf: (server: number) => Record<string, unknown>, calls: number): Promise<number[][]> {
  return interleavedRequests(servers, (client, index) => call(client, name, argsOf(index)), calls);
}

/**
 * Latencies of `calls` of any request (`send`) on each server, after 20 to warm up, in interleaved
 * rounds of 30. `before`, when given, runs before each request, untimed (e.g. a write that leaves
 * nothing a read remembered current).
 */
export async function interleavedRequests(
  servers: Client[],
  send: (client: Client, server: number) => Promise<unknown>,
  calls: number,
  before?: (client: Client, server: number) => Promise<unknown>,
): Promise<number[][]> {
  const samples = servers.map(() => [] as number[]);
  for (let warm = 0; warm < 20; warm++) {
    for (let index = 0; index < servers.length; index++) {
      await before?.(servers[index], index);
      await send(servers[index], index);
    }
  }
  const round = 30;
  for (let done = 0; done < calls; done += round) {
    for (let index = 0; index < servers.length; index++) {
      for (let step = 0; step < round; step++) {
        await before?.(servers[index], index);
        const start = performance.now();
        await send(servers[index], index);
        samples[index].push(performance.now() - start);
      }
    }
  }
  return samples;
}

/**
 * Runs `measure` with the prebuilt `baton mcp` current. A source edited meanwhile (a shared
 * checkout) makes `baton mcp` fall back to tsx, which is slower and larger: the figures then say so.
 */
export async function withPrebuilt<T>(what: string, measure: () => Promise<T>): Promise<T> {
  await ensurePrebuilt("mcp");
  const result = await measure();
  if (!freshEntry("mcp")) log(`  WARNING: a source changed during "${what}": some baton mcp processes may have run through tsx, not the prebuilt server`);
  return result;
}
