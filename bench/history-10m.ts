/**
 * History at ten million entries (issue 29, point 5): the home page, a thread page (a
 * 10,000-entry thread and a typical one), `get_handoff` over stdio, the attention view ("Needs
 * you now") and the SessionStart hook, at 10,000 handoffs / 1,000,000 entries and at 100,000
 * handoffs / 10,000,000 entries, in one run; each figure's ratio 10M / 1M is held to ≤ ×1.5
 * (bench/targets.ts).
 *
 * The databases are the ones `npm run bench -- search` keeps (`BATON_BENCH_SEARCH_KEEP`), named
 * by `BATON_BENCH_HISTORY_1M` and `BATON_BENCH_HISTORY_10M` (the 10M one takes most of an hour
 * to build: `BATON_BENCH_SEARCH_ENTRIES=10000000 BATON_BENCH_SEARCH_HANDOFFS=100000`). They are
 * never written: each is copied once into `BATON_BENCH_HISTORY_WORK` (default the system's
 * temporary folder; 7 GB for both) and the copy prepared, then reused by later runs. Preparing
 * migrates the copy, adds what the search fixture lacks: a 10,000-entry thread (read by chat up
 * to its last 4,000, bench/fixtures.ts fillThread) and prunes the change feed (lib/changes); each
 * run links a repository to the project `infra` (`baton link`), so the hook picks up handoffs. The fixture's own shape makes the attention view work: a third
 * of its handoffs are completed, the rest active; a sixth of the entries are questions, none
 * answered; each thread's cursors stop at its 6th (chat) and 16th (code) entry, so every active
 * thread has unread entries older than BATON_WAITING_AFTER and open questions.
 *
 * Pages: GET of the production server (scripts/start.mjs, as `npm start` serves it), one per
 * folder, requests alternating between the two. The home page reuses its attention for 10 s
 * while nothing is written (lib/dashboard find-attention), so GET / measures the page as most
 * requests see it and the attention view is measured on its own: the uncached computation in
 * process, in blocks of five runs alternating between the folders. `get_handoff` is timed over stdio against the prebuilt `baton mcp`, one server per
 * folder, calls alternating, each read afresh (a paged read of the latest entries, which is never remembered); the hook from spawn to exit, alternating.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { pruneChanges } from "../lib/changes";
import { closeDatabase } from "../lib/database";
import { ensureMigrated } from "../lib/database/migrate";
import { computeAttention } from "../lib/dashboard/find-attention";
import { END_OF_THREAD } from "../lib/handoffs/limits";
import { linkRepository } from "../lib/pickup/links";
import { ensurePrebuilt } from "../lib/prebuilt/build";
import { freshEntry } from "../lib/prebuilt/prebuilt.mjs";
import { connectStdioClient } from "../tests/support/mcp-clients";
import { fillThread } from "./fixtures";
import { printReport, type Figure } from "./report";
import { benchRepository } from "./speed/common";
import { runToExit } from "./speed/hook";
import { call } from "./speed/mcp";
import { median, ms, projectRoot, removeAtExit, startProductionServer, timeIt, type ProductionServer } from "./support";

const RUNS = 30;
const ATTENTION_BLOCK = 5;
/** Changes when preparing a copy does: an older copy is prepared again from its source. */
const PREPARED = "history-10m prepared 3";
const LONG_THREAD = "hof_benchhistorylong00000";
const LONG_SIZE = 10_000;
/** A handoff both fixtures hold (the 5,000th), about 100 entries long in either. */
const TYPICAL_THREAD = `hof_bench${String(5_000).padStart(16, "0")}`;
const LINKED_PROJECT = "infra";

type Side = { label: string; dir: string; env: Record<string, string> };

const envOf = (dir: string) => ({ BATON_DATA_DIR: dir, DATABASE_URL: `file:${path.join(dir, "baton.db")}` });

function pointAt(side: Side) {
  Object.assign(process.env, side.env);
}

/**
 * A prepared copy of `source` under the work folder: copied once (marked `copied` with the
 * source's build mark), prepared once (marked `prepared`), reused after.
 */
async function preparedCopy(label: string, source: string, workRoot: string): Promise<Side> {
  const dir = path.join(workRoot, `baton-bench-history-${label}`);
  const side = { label, dir, env: envOf(dir) };
  const sourceMark = fs.readFileSync(path.join(source, "built"), "utf8");
  const read = (name: string) => (fs.existsSync(path.join(dir, name)) ? fs.readFileSync(path.join(dir, name), "utf8") : null);
  if (read("copied") === sourceMark && read("prepared") === PREPARED) return side;
  const start = performance.now();
  if (read("copied") !== sourceMark) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    for (const name of ["baton.db", "baton.db-wal"]) if (fs.existsSync(path.join(source, name))) fs.copyFileSync(path.join(source, name), path.join(dir, name));
    fs.writeFileSync(path.join(dir, "copied"), sourceMark);
  }
  pointAt(side);
  await ensureMigrated();
  const sqlite = new Database(path.join(dir, "baton.db"));
  const hasLong = sqlite.prepare("SELECT 1 FROM handoffs WHERE id = ?").get(LONG_THREAD) !== undefined;
  sqlite.close();
  if (!hasLong) fillThread(LONG_THREAD, LONG_SIZE);
  // The fill's change rows, pruned as a running server prunes them when it starts (minutes at
  // ten million, during which its pages wait): the bench measures a desk in its steady state.
  await pruneChanges();
  const checkpoint = new Database(path.join(dir, "baton.db"));
  checkpoint.pragma("wal_checkpoint(TRUNCATE)");
  checkpoint.close();
  await closeDatabase();
  fs.writeFileSync(path.join(dir, "prepared"), PREPARED);
  console.log(`(copied ${source} and prepared it in ${ms(performance.now() - start)})`);
  return side;
}

/** Per side, the timings of `work(side)`, rounds alternating between the sides (after two unmeasured rounds). */
/** `work`'s times on each side, alternating; `before`, when given, runs first each time, untimed. */
async function alternating(
  sides: Side[],
  runs: number,
  work: (side: Side, index: number) => Promise<unknown>,
  before?: (side: Side, index: number) => Promise<unknown>,
): Promise<number[][]> {
  const samples = sides.map(() => [] as number[]);
  for (let round = -2; round < runs; round++) {
    for (const [index, side] of sides.entries()) {
      await before?.(side, index);
      const start = performance.now();
      await work(side, index);
      if (round >= 0) samples[index].push(performance.now() - start);
    }
  }
  return samples;
}

async function page(url: string): Promise<string> {
  const response = await fetch(url);
  const body = await response.text();
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${body.slice(0, 200)}`);
  return body;
}

/** Milliseconds from spawning `baton hook session-start` to its exit, and what it printed. */
function hookRun(side: Side, repo: string, session: number): Promise<{ ms: number; stdout: string }> {
  const input = JSON.stringify({ session_id: `bench-${session}`, transcript_path: "/tmp/bench.jsonl", cwd: repo, hook_event_name: "SessionStart", source: "startup" });
  return runToExit([path.join(projectRoot, "bin", "baton.mjs"), "hook", "session-start"], input, repo, { ...process.env, ...side.env });
}

function ratioFigures(name: string, [small, large]: number[][]): Figure {
  return { name, value: median(large), unit: "ms", reference: { value: median(small), label: "at 1M" } };
}

function line(label: string, figure: Figure) {
  console.log(`  ${label.padEnd(34)} 1M ${ms(figure.reference!.value).padStart(9)} · 10M ${ms(figure.value).padStart(9)} · ×${(figure.value / figure.reference!.value).toFixed(2)}`);
}

export async function run() {
  const sources = [process.env.BATON_BENCH_HISTORY_1M, process.env.BATON_BENCH_HISTORY_10M];
  if (!sources[0] || !sources[1]) {
    console.log(
      "history-10m: set BATON_BENCH_HISTORY_1M and BATON_BENCH_HISTORY_10M to data folders kept by `npm run bench -- search` " +
        "(BATON_BENCH_SEARCH_KEEP=<folder>, and for the second BATON_BENCH_SEARCH_ENTRIES=10000000 BATON_BENCH_SEARCH_HANDOFFS=100000); skipped",
    );
    return;
  }
  const workRoot = process.env.BATON_BENCH_HISTORY_WORK || os.tmpdir();
  const sides = [await preparedCopy("1m", sources[0], workRoot), await preparedCopy("10m", sources[1], workRoot)];
  const repo = benchRepository("git@github.com:bench/history.git");
  const servers: ProductionServer[] = [];
  const clients: Client[] = [];
  const figures: Figure[] = [];
  try {
    for (const side of sides) {
      pointAt(side);
      await linkRepository({ folder: repo, project: LINKED_PROJECT });
      const sqlite = new Database(path.join(side.dir, "baton.db"), { readonly: true });
      const counts = sqlite.prepare("SELECT (SELECT COUNT(*) FROM handoffs) AS handoffs, (SELECT MAX(seq) FROM handoff_entries) AS seq, (SELECT COUNT(*) FROM handoff_entries WHERE handoff_id = ?) AS typical").get(TYPICAL_THREAD) as Record<string, number>;
      sqlite.close();
      console.log(`${side.label}: ${counts.handoffs.toLocaleString("en")} handoffs, last seq ${counts.seq.toLocaleString("en")}; typical thread ${TYPICAL_THREAD}: ${counts.typical} entries; long thread: ${LONG_SIZE.toLocaleString("en")}`);
    }
    await closeDatabase();

    // The attention view, uncached, in process: blocks of ATTENTION_BLOCK runs alternating
    // between the folders (the database reopened for each, one unmeasured run first), so both
    // see the same load. The staleness check within it is kept 15 s, as the server keeps it.
    const attention: number[][] = sides.map(() => []);
    for (let block = 0; block < RUNS / ATTENTION_BLOCK; block++) {
      for (const [index, side] of sides.entries()) {
        pointAt(side);
        const first = await computeAttention();
        if (block === 0) {
          const questions = first.threads.reduce((sum, thread) => sum + thread.sides.reduce((count, held) => count + held.questions.length, 0), 0);
          console.log(`  attention at ${side.label}: ${first.threads.length} thread rows, ${questions} questions, count ${first.count}`);
        }
        attention[index].push(...(await timeIt(ATTENTION_BLOCK, () => computeAttention(), 0)));
        await closeDatabase();
      }
    }

    // Pages, both servers up, requests alternating.
    const reuse = process.env.BATON_BENCH_REUSE_BUILD === "1";
    for (const [index, side] of sides.entries()) {
      pointAt(side);
      servers.push(await startProductionServer(3931 + index, { distDir: ".next-bench-history", build: index === 0 && !reuse }));
    }
    const home = await alternating(sides, RUNS, (_, index) => page(`${servers[index].baseUrl}/`));
    const longPage = await alternating(sides, RUNS, (_, index) => page(`${servers[index].baseUrl}/handoffs/${LONG_THREAD}`));
    const typicalPage = await alternating(sides, RUNS, (_, index) => page(`${servers[index].baseUrl}/handoffs/${TYPICAL_THREAD}`));
    for (const server of servers.splice(0)) await server.stop();

    // get_handoff over stdio, one `baton mcp` per folder, calls alternating.
    await ensurePrebuilt("mcp");
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "baton-bench-history-cwd-"));
    removeAtExit(cwd);
    for (const side of sides) clients.push((await connectStdioClient({ env: side.env, cwd })).client);
    // A whole-thread read of an unchanged thread is answered from what the last one made (lib/handoffs'
    // remembered reads), whatever else was written: each call here is a paged read (the latest
    // entries within the budget), which is never remembered, so every one reads afresh.
    const latest = { before_seq: END_OF_THREAD, as_client: "chat" };
    const getLong = await alternating(sides, RUNS, (_, index) => call(clients[index], "get_handoff", { id: LONG_THREAD, ...latest }));
    const getTypical = await alternating(sides, RUNS, (_, index) => call(clients[index], "get_handoff", { id: TYPICAL_THREAD, ...latest }));
    if (!freshEntry("mcp")) console.log("  WARNING: a source changed meanwhile: baton mcp may have run through tsx, not the prebuilt server");
    for (const client of clients.splice(0)) await client.close();

    // The SessionStart hook, spawn → exit, alternating.
    await ensurePrebuilt("hook");
    for (const side of sides) {
      const { stdout } = await hookRun(side, repo, 0);
      const context = stdout ? (JSON.parse(stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext : "";
      const picked = (context.match(/^Handoff hof_/gm) ?? []).length + (context.match(/^- hof_/gm) ?? []).length;
      if (picked === 0) throw new Error(`the hook picked nothing up at ${side.label}: ${stdout.slice(0, 300)}`);
      console.log(`  hook at ${side.label}: ${picked} handoffs waiting (${Buffer.byteLength(stdout)} B of context)`);
    }
    let session = 1;
    const hook = await alternating(sides, RUNS, async (side) => hookRun(side, repo, session++));
    if (!freshEntry("hook")) console.log("  WARNING: a source changed meanwhile: the hook may have run through tsx, not the prebuilt hook");

    figures.push(
      ratioFigures("history 10M/1M: GET /", home),
      ratioFigures("history 10M/1M: GET /handoffs/<id>, 10,000 entries", longPage),
      ratioFigures("history 10M/1M: GET /handoffs/<id>, typical thread", typicalPage),
      ratioFigures("history 10M/1M: stdio get_handoff, 10,000 entries", getLong),
      ratioFigures("history 10M/1M: stdio get_handoff, typical thread", getTypical),
      ratioFigures("history 10M/1M: attention view (uncached, in process)", attention),
      ratioFigures("history 10M/1M: hook session-start, start → exit", hook),
    );
    console.log(`\nmedians of ${RUNS}, 1M = 10,000 handoffs / 1,000,000 entries, 10M = 100,000 handoffs / 10,000,000 entries:`);
    for (const figure of figures) line(figure.name.replace("history 10M/1M: ", ""), figure);
    printReport(figures);
  } finally {
    for (const client of clients) await client.close().catch(() => {});
    for (const server of servers) await server.stop();
    await closeDatabase();
    fs.rmSync(repo, { recursive: true, force: true });
  }
}
