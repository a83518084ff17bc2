/**
 * Agents at scale (issue 3): the continuity chain costs two statements whatever its length and
 * does not grow with the number of other agents; the /agents page query with chain lengths;
 * a shift_end handoff (document write + transaction). Small and large databases in one run.
 */
import { randomUUID } from "node:crypto";
import Database from "better-sqlite3";
import { findAgents, getContinuityChain, registerAgent, triggerHandoff } from "../lib/agents";
import { databaseFile } from "../lib/config";
import { closeDatabase, storedDate } from "../lib/database";
import { ensureMigrated } from "../lib/database/migrate";
import { makeTemporaryDataDir, median, ms, timeIt } from "./support";

const iso = (time: number) => storedDate(new Date(time));

/** Inserts `chains` chains of `length` agents each through SQL: fixture generation, not a door. Returns each chain's tail id. */
function fillChains(persona: string, chains: number, length: number): number[] {
  const sqlite = new Database(databaseFile());
  const insert = sqlite.prepare(
    "INSERT INTO agents (session_id, persona_slug, name, project, status, previous_agent_id, started_at, ended_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const record = sqlite.prepare("INSERT INTO handoff_records (agent_id, reason, file_path, injection_prompt, delivery, created_at) VALUES (?, ?, ?, ?, ?, ?)");
  const tails: number[] = [];
  const start = Date.UTC(2026, 0, 1);
  sqlite.transaction(() => {
    for (let chain = 0; chain < chains; chain++) {
      let previous: number | null = null;
      for (let index = 0; index < length; index++) {
        const last = index === length - 1;
        const at = start + (chain * length + index) * 60_000;
        const id: number = Number(insert.run(randomUUID(), persona, persona, "bench", last ? "active" : "ended", previous, iso(at), last ? null : iso(at + 50_000)).lastInsertRowid);
        if (!last) record.run(id, "context_limit", `personas/${persona}/handoffs/x.md`, "Continuing…", "no target", iso(at + 50_000));
        previous = id;
      }
      tails.push(previous!);
    }
  })();
  sqlite.close();
  return tails;
}

async function chainMedian(tail: number, runs = 30): Promise<number> {
  return median(await timeIt(runs, () => getContinuityChain({ agentId: tail }), 15));
}

export async function run(): Promise<void> {
  makeTemporaryDataDir("agents");
  await ensureMigrated();
  const [shortTail] = fillChains("short", 1, 10);
  const smallDb = await chainMedian(shortTail);
  fillChains("noise", 4_000, 5);
  const [longTail] = fillChains("long", 1, 1_000);
  const largeDb = await chainMedian(shortTail);
  const long = await chainMedian(longTail, 15);
  const page = median(await timeIt(20, () => findAgents({ perPage: 50 })));
  const pageLong = median(await timeIt(20, () => findAgents({ persona: "long", perPage: 50 })));

  const handoffs: number[] = [];
  for (let index = 0; index < 20; index++) {
    const agent = await registerAgent({ personaSlug: "bench-dev", project: "bench" });
    const started = performance.now();
    await triggerHandoff({ agentId: agent.id, reason: "shift_end", document: `## Goal\nBench ${index}\n` });
    handoffs.push(performance.now() - started);
  }
  await closeDatabase();

  console.log(`chain of 10, 10 agents in the database:        median ${ms(smallDb)}`);
  console.log(`chain of 10, 21,010 agents in the database:    median ${ms(largeDb)}  (ratio ${(largeDb / smallDb).toFixed(2)}x)`);
  console.log(`chain of 1,000 (two statements, 1,000 rows):   median ${ms(long)}  (${(long / largeDb).toFixed(1)}x the chain of 10)`);
  console.log(`/agents page of 50 with chain lengths (21k):   median ${ms(page)}`);
  console.log(`/agents page of 50 inside a 1,000-agent chain: median ${ms(pageLong)}`);
  console.log(`shift_end handoff (document + transaction):    median ${ms(median(handoffs))}`);
}
