/**
 * The home page at scale: 10,000 handoffs and 200,000 entries (issue 2, acceptance 4).
 * Measures `findHandoffs` (the query behind the page) and GET / of a production server,
 * against the same page on a small database, in one run.
 */
import Database from "better-sqlite3";
import { databaseFile } from "../lib/config";
import { findHandoffs } from "../lib/handoffs";
import { closeDatabase } from "../lib/database";
import { ensureMigrated } from "../lib/database/migrate";
import { median, ms, startProductionServer, timeIt, makeTemporaryDataDir } from "./support";

const HANDOFFS = 10_000;
const ENTRIES = 200_000;
const TYPES = ["context", "task", "progress", "question", "decision", "done"];
const PROJECTS = ["hlg", "dnd", "billing", "infra", "search", "design", "growth", "shop"];

/**
 * A deterministic pseudo-random sequence, so every run measures the same data. Math.imul keeps
 * the product exact: in doubles it exceeds 2^53, rounds, and the sequence falls into a short cycle.
 */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) & 0x7fffffff;
    return state / 2 ** 31;
  };
}

const iso = (time: number) => new Date(time).toISOString().replace("Z", "+00:00");

export type FillOptions = {
  firstIndex?: number;
  /** A title for the index-th handoff (default: "Bench thread <index>: <type> work"). */
  title?: (index: number, next: () => number) => string;
  /** An entry's content (default: its index eight times, words no search would look for). */
  content?: (index: number, next: () => number) => string;
  /** Entries per transaction (default: all in one). */
  batch?: number;
};

/** Fills the database through SQL: fixture generation, not a door. */
export function fill(handoffs: number, entries: number, options: FillOptions = {}) {
  const { firstIndex = 0, batch = entries } = options;
  const title = options.title ?? ((index: number) => `Bench thread ${index}: ${TYPES[index % TYPES.length]} work`);
  const content = options.content ?? ((index: number) => `entry ${index} `.repeat(8));
  const sqlite = new Database(databaseFile());
  const next = random(42 + firstIndex);
  const start = Date.UTC(2026, 0, 1);
  const ids = Array.from({ length: handoffs }, (_, index) => `hof_bench${String(firstIndex + index).padStart(16, "0")}`);
  const insertHandoff = sqlite.prepare(
    "INSERT INTO handoffs (id, title, project, status, created_at, updated_at, closed_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  const insertEntry = sqlite.prepare(
    "INSERT INTO handoff_entries (handoff_id, from_client, type, content, created_at) VALUES (?, ?, ?, ?, ?)",
  );
  sqlite.transaction(() => {
    ids.forEach((id, index) => {
      const created = start + index * 60_000;
      const completed = next() < 0.3;
      insertHandoff.run(id, title(firstIndex + index, next), PROJECTS[index % PROJECTS.length], completed ? "completed" : "active", iso(created), iso(created + 3_600_000 * next()), completed ? iso(created + 7_200_000) : null);
    });
  })();
  // Entries land on random threads, so seqs interleave across threads as in real use.
  const insertEntries = sqlite.transaction((from: number, to: number) => {
    for (let index = from; index < to; index++) {
      const id = ids[Math.floor(next() * ids.length)];
      insertEntry.run(id, next() < 0.5 ? "chat" : "code", TYPES[Math.floor(next() * TYPES.length)], content(index, next), iso(start + index * 1000));
    }
  });
  for (let from = 0; from < entries; from += batch) insertEntries(from, Math.min(entries, from + batch));
  // Cursors somewhere inside each thread, so unread counts are non-trivial.
  sqlite.exec(`UPDATE handoffs SET
    chat_last_seen = COALESCE((SELECT seq FROM handoff_entries e WHERE e.handoff_id = handoffs.id ORDER BY seq LIMIT 1 OFFSET 5), 0),
    code_last_seen = COALESCE((SELECT seq FROM handoff_entries e WHERE e.handoff_id = handoffs.id ORDER BY seq LIMIT 1 OFFSET 15), 0)`);
  sqlite.close();
}

async function measure(label: string, baseUrl: string, runs: number) {
  const query = median(await timeIt(runs, () => findHandoffs({})));
  const filtered = median(await timeIt(runs, () => findHandoffs({ status: "active", project: "infra", q: "work" })));
  const page = median(await timeIt(runs, async () => (await fetch(`${baseUrl}/`)).text()));
  const lastPage = median(await timeIt(runs, async () => (await fetch(`${baseUrl}/?page=200`)).text()));
  console.log(`${label}: findHandoffs ${ms(query)} · filtered ${ms(filtered)} · GET / ${ms(page)} · GET /?page=200 ${ms(lastPage)}`);
  return { query, page };
}

export async function run() {
  makeTemporaryDataDir("history");
  await ensureMigrated();
  fill(12, 60);
  const server = await startProductionServer(3901);
  try {
    const small = await measure("12 handoffs / 60 entries       ", server.baseUrl, 30);
    const fillStart = performance.now();
    fill(HANDOFFS - 12, ENTRIES - 60, { firstIndex: 12 });
    console.log(`(filled ${HANDOFFS.toLocaleString("en")} handoffs / ${ENTRIES.toLocaleString("en")} entries in ${ms(performance.now() - fillStart)})`);
    const large = await measure("10,000 handoffs / 200,000 entries", server.baseUrl, 30);
    console.log(`ratio large/small: findHandoffs ×${(large.query / small.query).toFixed(2)} · GET / ×${(large.page / small.page).toFixed(2)} (medians of 30)`);
    const sqlite = new Database(databaseFile(), { readonly: true });
    const plan = sqlite
      .prepare("EXPLAIN QUERY PLAN SELECT COUNT(*) FROM handoff_entries e WHERE e.handoff_id = ? AND e.seq > ?")
      .all("hof_x", 0)
      .map((row) => (row as { detail: string }).detail);
    console.log(`unread count plan: ${plan.join("; ")}`);
    sqlite.close();
  } finally {
    await server.stop();
    await closeDatabase();
  }
}
