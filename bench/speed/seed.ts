/**
 * Speed part `seed` (issue 29, point 1): Baton's stdio server against the seed's own
 * (project-brain, seed 000's reference server, built from its public repository), both started
 * in the same git repository, as Claude Code starts them: add_to_handoff and get_handoff (300
 * entries) p50 and p95 in interleaved rounds, get_handoff again after a write to another thread
 * before each call (what a busy server's reader meets: Baton checks the thread's row), then read
 * afresh (Baton's thread changed before each call), and spawn → first tools/list.
 *
 * The reference is a built project-brain folder: BATON_BENCH_PROJECT_BRAIN (default
 * /tmp/project-brain), made by the machine's `peers/project-brain.sh <git copy>`, with a data
 * folder its first start already created (BATON_BENCH_BRAIN_DATA, default /tmp/brain-data: the
 * upstream server dies on its very first start). Without one the part says how to build it.
 *
 * Both run on Node 22 (tests/support/lts-node.ts's, from the npm registry): the seed's SQLite
 * binding (better-sqlite3-multiple-ciphers 12) aborts on Node 24 when it frees a statement, so
 * its folder's binding must be compiled for Node 22 (`PATH=<node 22>/bin:$PATH
 * npm_config_nodedir=<node 22> npx node-gyp rebuild` in node_modules/better-sqlite3-multiple-ciphers).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ltsNode } from "../../tests/support/lts-node";
import { connectStdioClient } from "../../tests/support/mcp-clients";
import { f2, msOf, type Figure } from "../report";
import { bundleWorker, median, percentile, projectRoot } from "../support";
import { benchRepository, contentOf, log, STARTS, THREAD_SIZE } from "./common";
import { call, interleaved, interleavedRequests } from "./mcp";
import { startTime } from "./startup";

const BRAIN_DIR = process.env.BATON_BENCH_PROJECT_BRAIN || "/tmp/project-brain";
/**
 * Calls per figure, each server. Point 1 compares p95s: of 300 calls (the other stdio parts'
 * count) the p95 is the 15th slowest, and the same code's get_handoff p95 ratio moved from ×0.53
 * to ×1.20 between runs; of 1,000 it is the 50th.
 */
const SEED_CALLS = 1_000;
const BRAIN_DATA = process.env.BATON_BENCH_BRAIN_DATA || "/tmp/brain-data";
// The password peers/project-brain.sh primed the data folder with (its databases are encrypted).
const BRAIN_PASSWORD = "test-only";

/** A copy of the primed data folder, so each run starts from the same empty brain. */
function brainData(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-bench-brain-"));
  fs.cpSync(BRAIN_DATA, dir, { recursive: true });
  return dir;
}

async function connectBrain(node: string, cwd: string, data: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: node,
    args: [path.join(BRAIN_DIR, "dist", "index.js"), "--stdio"],
    env: { ...(process.env as Record<string, string>), BRAIN_DATA_PATH: data, BRAIN_PASSWORD },
    cwd,
    stderr: "pipe",
  });
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

type ToolResult = Awaited<ReturnType<typeof call>>;

/** The handoff ID in a create_handoff answer: Baton's structured one, the seed's JSON text. */
const createdIdOf = (created: ToolResult): string =>
  ((created.structuredContent as { handoff: { id: string } } | undefined) ?? (JSON.parse((created.content as { type: string; text: string }[])[0].text) as { handoff: { id: string } })).handoff.id;

/**
 * A thread of `size` entries written through a server's own tools, read to the end by chat.
 * Both servers' threads are written so: before the timed rounds each has then answered the same
 * calls, and neither meets its append path cold while the other has already run it 300 times.
 * `appendTimes`, when given, gets each append's latency.
 */
async function threadThrough(client: Client, size: number, title: string, appendTimes: number[] = []): Promise<string> {
  const id = createdIdOf(await call(client, "create_handoff", { title, content: contentOf(0) }));
  for (let index = 1; index < size; index++) {
    const start = performance.now();
    await call(client, "add_to_handoff", { id, type: index % 2 ? "progress" : "question", content: contentOf(index), as_client: index % 2 ? "code" : "chat" });
    appendTimes.push(performance.now() - start);
  }
  await call(client, "mark_handoff_read", { id });
  return id;
}

export async function againstSeed(): Promise<Figure[]> {
  if (!fs.existsSync(path.join(BRAIN_DIR, "dist", "index.js")) || !fs.existsSync(BRAIN_DATA)) {
    log(`\n11. the seed's server: not built (no ${BRAIN_DIR}/dist/index.js or ${BRAIN_DATA}); build it with peers/project-brain.sh <a git copy of Bhavya-Jain5/project-brain>`);
    return [];
  }
  const node = ltsNode(22).node;
  log(`\n11. stdio against the seed's server (project-brain), both on Node 22 in one git repository, ${SEED_CALLS} calls each (interleaved rounds of 30):`);
  const repo = benchRepository("git@github.com:bench/seed.git");
  const data = brainData();
  const baton = await connectStdioClient({ cwd: repo, command: { command: node, args: [path.join(projectRoot, "bin", "baton.mjs"), "mcp"] } });
  const brain = await connectBrain(node, repo, data);
  try {
    // Each server's first appends after its start: the calls a short session makes, before V8
    // has optimized the server's call path (lib/mcp/tiering.mjs).
    const firstAppends = { baton: [] as number[], brain: [] as number[] };
    const batonRead = await threadThrough(baton.client, THREAD_SIZE, "Baton read (see src/module3.ts)", firstAppends.baton);
    const batonWrite = await threadThrough(baton.client, 1, "Baton write");
    const batonChanging = await threadThrough(baton.client, THREAD_SIZE, "Baton read afresh");
    const brainRead = await threadThrough(brain, THREAD_SIZE, "Seed read", firstAppends.brain);
    const brainWrite = await threadThrough(brain, 1, "Seed write");
    const answer = (await call(baton.client, "get_handoff", { id: batonRead })).structuredContent as { entries: unknown[]; truncated: boolean };
    if (answer.entries.length !== THREAD_SIZE || answer.truncated) throw new Error("Baton's get_handoff did not carry the whole thread");
    const [batonAdd, brainAdd] = await interleaved([baton.client, brain], "add_to_handoff", (index) => ({ id: index === 0 ? batonWrite : brainWrite, type: "progress", content: "bench entry" }), SEED_CALLS);
    // "bench entry" holds none of the prefixes secretlint's rules look for, so Baton's scan skips
    // them (lib/secrets/scan.ts); an entry with a link (`://`) is read by the four that look at URLs.
    const [batonAddLinked, brainAddLinked] = await interleaved([baton.client, brain], "add_to_handoff", (index) => ({ id: index === 0 ? batonWrite : brainWrite, type: "progress", content: WITH_A_LINK }), SEED_CALLS);
    const [batonGet, brainGet] = await interleaved([baton.client, brain], "get_handoff", (index) => ({ id: index === 0 ? batonRead : brainRead }), SEED_CALLS);
    // Baton answers an unchanged thread with what its last read made (lib/handoffs' remembered
    // reads): after a write to another thread it reads the thread's row and answers that again.
    const [batonElsewhere, brainElsewhere] = await interleavedRequests(
      [baton.client, brain],
      (client, index) => call(client, "get_handoff", { id: index === 0 ? batonRead : brainRead }),
      SEED_CALLS,
      (client, index) => call(client, "add_to_handoff", { id: index === 0 ? batonWrite : brainWrite, type: "progress", content: "bench entry" }),
    );
    // Read afresh: the reader's own append to Baton's thread before each call (its cursor moves
    // with it, so nothing is new) and its latest 300 entries read, as many as the seed's thread
    // has. The seed reads afresh every time; it writes to its other thread, untimed, as Baton does.
    const [batonFresh, brainFresh] = await interleavedRequests(
      [baton.client, brain],
      (client, index) => call(client, "get_handoff", index === 0 ? { id: batonChanging, limit: THREAD_SIZE } : { id: brainRead }),
      SEED_CALLS,
      (client, index) => call(client, "add_to_handoff", { id: index === 0 ? batonChanging : brainWrite, type: "progress", content: "bench entry" }),
    );
    const fresh = (await call(baton.client, "get_handoff", { id: batonChanging, limit: THREAD_SIZE })).structuredContent as { entries: unknown[] };
    if (fresh.entries.length !== THREAD_SIZE) throw new Error("Baton's fresh get_handoff did not carry 300 entries");
    const figures: Figure[] = [];
    for (const [label, ours, seeds] of [["add_to_handoff", batonAdd, brainAdd], ["get_handoff 300 entries", batonGet, brainGet]] as const) {
      log(`  ${label.padEnd(24)} Baton p50 ${msOf(median(ours))} p95 ${msOf(percentile(ours, 0.95))} · seed p50 ${msOf(median(seeds))} p95 ${msOf(percentile(seeds, 0.95))} · ×${f2(median(ours) / median(seeds))} / ×${f2(percentile(ours, 0.95) / percentile(seeds, 0.95))}`);
      figures.push(
        { name: `stdio ${label} p50 vs the seed's server`, value: median(ours), unit: "ms", reference: { value: median(seeds), label: "project-brain" } },
        { name: `stdio ${label} p95 vs the seed's server`, value: percentile(ours, 0.95), unit: "ms", reference: { value: percentile(seeds, 0.95), label: "project-brain" } },
      );
    }
    for (const [label, note, ours, seeds] of [
      ["add_to_handoff, a link", `an entry with a link ("${WITH_A_LINK}")`, batonAddLinked, brainAddLinked],
      ["get_handoff, elsewhere", "a write to another thread before each call", batonElsewhere, brainElsewhere],
      ["get_handoff, afresh", "Baton's thread written before each call", batonFresh, brainFresh],
    ] as const) {
      log(
        `  ${label.padEnd(24)} Baton p50 ${msOf(median(ours))} p95 ${msOf(percentile(ours, 0.95))} · seed p50 ${msOf(median(seeds))} p95 ${msOf(percentile(seeds, 0.95))} · ` +
          `×${f2(median(ours) / median(seeds))} / ×${f2(percentile(ours, 0.95) / percentile(seeds, 0.95))} (${note})`,
      );
      const tool = label.startsWith("add") ? "add_to_handoff" : "get_handoff 300 entries";
      figures.push(
        { name: `stdio ${tool} p50, ${note}`, value: median(ours), unit: "ms", reference: { value: median(seeds), label: "project-brain" } },
        { name: `stdio ${tool} p95, ${note}`, value: percentile(ours, 0.95), unit: "ms", reference: { value: percentile(seeds, 0.95), label: "project-brain" } },
      );
    }
    log(
      `  ${"first appends".padEnd(24)} Baton p50 ${msOf(median(firstAppends.baton))} p95 ${msOf(percentile(firstAppends.baton, 0.95))} · seed p50 ${msOf(median(firstAppends.brain))} p95 ${msOf(percentile(firstAppends.brain, 0.95))} · ` +
        `×${f2(median(firstAppends.baton) / median(firstAppends.brain))} / ×${f2(percentile(firstAppends.baton, 0.95) / percentile(firstAppends.brain, 0.95))} (${FIRST_APPENDS_NOTE})`,
    );
    figures.push(
      { name: `stdio add_to_handoff p50, ${FIRST_APPENDS_NOTE}`, value: median(firstAppends.baton), unit: "ms", reference: { value: median(firstAppends.brain), label: "project-brain" } },
      { name: `stdio add_to_handoff p95, ${FIRST_APPENDS_NOTE}`, value: percentile(firstAppends.baton, 0.95), unit: "ms", reference: { value: percentile(firstAppends.brain, 0.95), label: "project-brain" } },
    );
    figures.push(...(await protocolPath([baton.client, brain], { add: [median(batonAdd), median(brainAdd)] })));
    figures.push(...(await answerFloors(node, [baton.client, brain], { reads: [batonRead, brainRead], writes: [batonWrite, brainWrite] }, { add: median(brainAdd), get: median(brainGet) })));
    const starts = { baton: [] as number[], brain: [] as number[] };
    const batonArgs = [path.join(projectRoot, "bin", "baton.mjs"), "mcp"];
    const brainArgs = [path.join(BRAIN_DIR, "dist", "index.js"), "--stdio"];
    const brainEnv = { ...process.env, BRAIN_DATA_PATH: data, BRAIN_PASSWORD };
    for (let index = 0; index < STARTS; index++) {
      starts.baton.push(await startTime(batonArgs, process.env, true, 0, repo, node));
      starts.brain.push(await startTime(brainArgs, brainEnv, true, 0, repo, node));
    }
    log(`  spawn → first tools/list (median of ${STARTS}, interleaved): Baton ${msOf(median(starts.baton))} · seed ${msOf(median(starts.brain))} · ×${f2(median(starts.baton) / median(starts.brain))}`);
    figures.push({ name: "stdio spawn → first tools/list vs the seed's server", value: median(starts.baton), unit: "ms", reference: { value: median(starts.brain), label: "project-brain" } });
    return figures;
  } finally {
    await Promise.all([baton.client.close(), brain.close()]);
    fs.rmSync(repo, { recursive: true, force: true });
    fs.rmSync(data, { recursive: true, force: true });
  }
}

/** What the first appends' figures are: each server's first calls, one server after the other. */
const FIRST_APPENDS_NOTE = `the first ${THREAD_SIZE - 1} after start, not interleaved`;

/** An append's text with a link in it, so the secret scan runs secretlint's rules that look at URLs. */
const WITH_A_LINK = "bench entry, see https://example.com/docs";

/** A handoff ID neither server has. */
const MISSING_ID = "hof_benchmissing000000";

/**
 * What each server takes for a call that does no work of its own: `ping` (the protocol and the
 * pipe) and a tool call refused because its handoff does not exist (that plus reading the
 * arguments, one indexed read and an error answer), interleaved. Against the append's p50
 * (`add`, Baton's then the seed's), the difference is what the append itself costs each server.
 */
async function protocolPath(clients: Client[], p50: { add: number[] }): Promise<Figure[]> {
  const pings = await interleavedRequests(clients, (client) => client.ping(), SEED_CALLS);
  const refusals = await interleavedRequests(
    clients,
    async (client) => {
      const result = await client.callTool({ name: "mark_handoff_read", arguments: { id: MISSING_ID } });
      if (!result.isError) throw new Error("mark_handoff_read of a handoff that does not exist did not fail");
    },
    SEED_CALLS,
  );
  const [ourPing, seedPing] = pings.map(median);
  const [ourRefusal, seedRefusal] = refusals.map(median);
  log(`  ${"ping".padEnd(24)} Baton p50 ${msOf(ourPing)} · seed p50 ${msOf(seedPing)} · ×${f2(ourPing / seedPing)}`);
  log(`  ${"refused: no such thread".padEnd(24)} Baton p50 ${msOf(ourRefusal)} · seed p50 ${msOf(seedRefusal)} · ×${f2(ourRefusal / seedRefusal)}`);
  log(`    add_to_handoff beyond that call: Baton ${msOf(p50.add[0] - ourRefusal)} · seed ${msOf(p50.add[1] - seedRefusal)}`);
  return [
    { name: "stdio ping p50 vs the seed's server", value: ourPing, unit: "ms", reference: { value: seedPing, label: "project-brain" } },
    { name: "stdio call refused (no such handoff) p50 vs the seed's server", value: ourRefusal, unit: "ms", reference: { value: seedRefusal, label: "project-brain" } },
    { name: "stdio add_to_handoff p50 beyond a refused call", value: p50.add[0] - ourRefusal, unit: "ms", reference: { value: p50.add[1] - seedRefusal, label: "project-brain" } },
  ];
}

/**
 * Each server's get_handoff and add_to_handoff answers sent back by bench/workers/canned-answer.ts,
 * a server that only answers: what the same client (the SDK's, as Claude Code's) pays to send the
 * call and receive and parse an answer of that size, interleaved. The difference between the two
 * is the part of the gap that the answer's size makes whatever the server does (a line over
 * 128 KiB, V8's large-object size, costs the client several times more). With the seed's p50s
 * (`seedP50`), each line also says how much time point 1's
 * ×0.9 leaves Baton's server for all its work, and how much the seed's server takes for its own.
 */
async function answerFloors(node: string, clients: Client[], threads: { reads: string[]; writes: string[] }, seedP50: { add: number; get: number }): Promise<Figure[]> {
  const worker = await bundleWorker("canned-answer");
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "baton-bench-canned-"));
  const canned: Client[] = [];
  try {
    const reads: ToolResult[] = [];
    const writes: ToolResult[] = [];
    for (const [index, client] of clients.entries()) {
      reads.push(await call(client, "get_handoff", { id: threads.reads[index] }));
      writes.push(await call(client, "add_to_handoff", { id: threads.writes[index], type: "progress", content: "bench entry" }));
    }
    const answers = [...reads, ...writes];
    const sizes: number[] = [];
    for (const [index, answer] of answers.entries()) {
      const file = path.join(folder, `answer-${index}.json`);
      fs.writeFileSync(file, JSON.stringify(answer));
      sizes.push(fs.statSync(file).size);
      const transport = new StdioClientTransport({ command: node, args: [worker], env: { ...(process.env as Record<string, string>), CANNED_RESULT_FILE: file }, stderr: "pipe" });
      const cannedClient = new Client({ name: "bench", version: "1.0.0" });
      await cannedClient.connect(transport);
      canned.push(cannedClient);
    }
    const [ours, seeds] = await interleaved(canned.slice(0, 2), "get_handoff", () => ({ id: "canned" }), SEED_CALLS);
    const [ourAdd, seedAdd] = await interleaved(canned.slice(2), "add_to_handoff", () => ({ id: "canned", type: "progress", content: "bench entry" }), SEED_CALLS);
    const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
    const room = (tool: "add" | "get", ourFloor: number, seedFloor: number) =>
      `×0.9 of the seed's p50 leaves Baton's server ${msOf(0.9 * seedP50[tool] - ourFloor)} for all its work; the seed's server takes ${msOf(seedP50[tool] - seedFloor)} for its own`;
    log(
      `  the same get_handoff answers from a server that only answers: Baton's ${kib(sizes[0])} p50 ${msOf(median(ours))} p95 ${msOf(percentile(ours, 0.95))} · ` +
        `the seed's ${kib(sizes[1])} p50 ${msOf(median(seeds))} p95 ${msOf(percentile(seeds, 0.95))}`,
    );
    log(`    ${room("get", median(ours), median(seeds))}`);
    log(
      `  the same add_to_handoff answers from a server that only answers: Baton's ${kib(sizes[2])} p50 ${msOf(median(ourAdd))} p95 ${msOf(percentile(ourAdd, 0.95))} · ` +
        `the seed's ${kib(sizes[3])} p50 ${msOf(median(seedAdd))} p95 ${msOf(percentile(seedAdd, 0.95))}`,
    );
    log(`    ${room("add", median(ourAdd), median(seedAdd))}`);
    return [
      { name: "stdio get_handoff 300 entries p50, the answer alone", value: median(ours), unit: "ms", reference: { value: median(seeds), label: "the seed's answer alone" } },
      { name: "stdio add_to_handoff p50, the answer alone", value: median(ourAdd), unit: "ms", reference: { value: median(seedAdd), label: "the seed's answer alone" } },
    ];
  } finally {
    await Promise.all(canned.map((client) => client.close()));
    fs.rmSync(folder, { recursive: true, force: true });
  }
}
