/**
 * Speed part `startup` (6): `baton mcp` from spawn to the first tools/list on an empty data
 * folder (against a migrated one), and to the answer to initialize warm (against bare Node
 * answering one line; the floor MCP server is timed beside them).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { databaseFile } from "../../lib/config";
import { msOf, type Figure } from "../report";
import { median, projectRoot } from "../support";
import { log, STARTS } from "./common";

const INITIALIZE = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } } };
const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };
const TOOLS_LIST = { jsonrpc: "2.0", id: 2, method: "tools/list" };

/** A process that answers the first line it reads: what spawning Node costs on this machine at this moment. */
const BARE_NODE = ["-e", 'process.stdin.once("data", () => process.stdout.write(\'{"id":1}\\n\'))'];

/**
 * Milliseconds from spawn to the answer to `initialize` or, with `toolsList`, to the first
 * `tools/list` (sent, as a client does, once `initialize` is answered).
 */
export async function startTime(args: string[], env: NodeJS.ProcessEnv, toolsList: boolean, stayFor = 0, cwd = projectRoot, node = process.execPath): Promise<number> {
  const start = performance.now();
  const child = spawn(node, args, { cwd, env, stdio: ["pipe", "pipe", "ignore"] });
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

export async function startUp(floorEntry: string): Promise<Figure[]> {
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
  return [
    { name: "first baton mcp (empty folder) → tools/list", value: median(samples.empty), unit: "ms", reference: { value: median(samples.migratedList), label: "migrated" } },
    { name: "warm baton mcp → initialize", value: median(samples.warm), unit: "ms", reference: { value: median(samples.node), label: "bare node" } },
  ];
}
