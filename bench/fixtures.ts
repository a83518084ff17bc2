/**
 * Databases the benchmarks measure, written through SQL (fixture generation, not a door): a
 * history of many handoffs with entries on random threads, and one long thread. Dates are stored
 * as Baton stores them (lib/database's storedDate).
 */
import Database from "better-sqlite3";
import { databaseFile } from "../lib/config";
import { storedDate } from "../lib/database";
import { INDEX_PENDING_ENTRIES } from "../lib/search/pending";

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

const iso = (time: number) => storedDate(new Date(time));

/** The search index of the entries written so far, as an append's batch writes it (lib/search/pending.ts). */
const indexPendingEntries = (sqlite: Database.Database) => INDEX_PENDING_ENTRIES.forEach((statement) => sqlite.exec(statement));

export type FillOptions = {
  firstIndex?: number;
  /** A title for the index-th handoff (default: "Bench thread <index>: <type> work"). */
  title?: (index: number, next: () => number) => string;
  /** An entry's content (default: its index eight times, words no search would look for). */
  content?: (index: number, next: () => number) => string;
  /** Entries per transaction (default: all in one). */
  batch?: number;
};

/**
 * `handoffs` handoffs (hof_bench…) and `entries` entries on random ones of them, with cursors inside
 * each thread.
 */
export function fillHandoffs(handoffs: number, entries: number, options: FillOptions = {}) {
  const { firstIndex = 0, batch = entries } = options;
  const title = options.title ?? ((index: number) => `Bench thread ${index}: ${TYPES[index % TYPES.length]} work`);
  const content = options.content ?? ((index: number) => `entry ${index} `.repeat(8));
  const sqlite = new Database(databaseFile(), { timeout: 10_000 });
  const next = random(42 + firstIndex);
  const start = Date.UTC(2026, 0, 1);
  const ids = Array.from({ length: handoffs }, (_, index) => `hof_bench${String(firstIndex + index).padStart(16, "0")}`);
  const insertHandoff = sqlite.prepare(
    "INSERT INTO handoffs (id, title, project, status, created_at, updated_at, closed_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  const insertEntry = sqlite.prepare(
    "INSERT INTO handoff_entries (handoff_id, number, from_client, type, content, created_at) VALUES (?, ?, ?, ?, ?, ?)",
  );
  // Each thread numbers its entries from #1, as lib/handoffs/store.ts does.
  const lastNumber = new Map<string, number>();
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
      const number = (lastNumber.get(id) ?? 0) + 1;
      lastNumber.set(id, number);
      insertEntry.run(id, number, next() < 0.5 ? "chat" : "code", TYPES[Math.floor(next() * TYPES.length)], content(index, next), iso(start + index * 1000));
    }
    indexPendingEntries(sqlite);
  });
  for (let from = 0; from < entries; from += batch) insertEntries(from, Math.min(entries, from + batch));
  const setLastNumber = sqlite.prepare("UPDATE handoffs SET last_number = ? WHERE id = ?");
  sqlite.transaction(() => {
    for (const [id, number] of lastNumber) setLastNumber.run(number, id);
  })();
  // Cursors somewhere inside each thread, so unread counts are non-trivial.
  sqlite.exec(`UPDATE handoffs SET
    chat_last_seen = COALESCE((SELECT seq FROM handoff_entries e WHERE e.handoff_id = handoffs.id ORDER BY seq LIMIT 1 OFFSET 5), 0),
    code_last_seen = COALESCE((SELECT seq FROM handoff_entries e WHERE e.handoff_id = handoffs.id ORDER BY seq LIMIT 1 OFFSET 15), 0)
    WHERE id LIKE 'hof_bench%'`);
  sqlite.close();
}

const stepOf = (index: number) =>
  `Step ${index}: **progress** on the migration, table ${index % 37} of 37.\n\n- checked the indexes\n- ${"ran the slow query again ".repeat(12)}`;

/** One thread of `entries` entries; returns the last entry's seq. */
export function fillThread(id: string, entries: number): number {
  const sqlite = new Database(databaseFile(), { timeout: 10_000 });
  const now = storedDate();
  const insert = sqlite.prepare("INSERT INTO handoff_entries (handoff_id, number, from_client, type, content, created_at) VALUES (?, ?, ?, 'progress', ?, ?)");
  let last = 0;
  sqlite.transaction(() => {
    sqlite.prepare("INSERT INTO handoffs (id, title, created_at, updated_at, last_number) VALUES (?, ?, ?, ?, ?)").run(id, `Bench thread of ${entries}`, now, now, entries);
    for (let index = 0; index < entries; index++) {
      last = Number(insert.run(id, index + 1, index % 2 ? "code" : "chat", stepOf(index), now).lastInsertRowid);
    }
    // Code has read everything; chat has read all but the last 4,000 (or half of a short thread).
    const chatCursor = Math.max(last - Math.min(4000, Math.floor(entries / 2)), 0);
    sqlite.prepare("UPDATE handoffs SET chat_last_seen = ?, code_last_seen = ? WHERE id = ?").run(chatCursor, last, id);
    indexPendingEntries(sqlite);
  })();
  sqlite.close();
  return last;
}
