/**
 * Full-text search at scale: 10,000 handoffs and 1,000,000 entries of generated prose (issues 17
 * and 29; targets in bench/targets.ts). The entries are written through the database's triggers,
 * as every door writes them, in transactions of 1,000, so the index has the shape real use gives
 * it; then `findHandoffs({ q })`, the query behind the home page's search and
 * `GET /api/handoffs?q=`, runs a mix of searches people type, the commonest words and short
 * prefixes included, on SQLite and then on PostgreSQL (the same rows, copied by `copyData`, as
 * `baton copy-data` moves a desk to a team server). Planted words and phrases check that what a
 * search must find, it finds.
 *
 * `BATON_BENCH_SEARCH_ENTRIES=10000000 BATON_BENCH_SEARCH_HANDOFFS=100000` measures ten million
 * entries; `BATON_BENCH_SEARCH_ENGINES=sqlite` skips PostgreSQL. `BATON_BENCH_SEARCH_KEEP=<folder>`
 * keeps the built SQLite database there and reuses it on the next run of the same size.
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { databaseFile } from "../lib/config";
import { findHandoffs, type FindHandoffsOptions } from "../lib/handoffs";
import { closeDatabase } from "../lib/database";
import { ensureMigrated } from "../lib/database/migrate";
import { fillHandoffs } from "./fixtures";
import pg from "pg";
import { copyData } from "../lib/database/copy-data";
import { startPostgresCluster } from "../tests/support/postgres-cluster";
import { printReport, type Figure } from "./report";
import { makeTemporaryDataDir, median, ms, percentile, timeIt } from "./support";

const HANDOFFS = Number(process.env.BATON_BENCH_SEARCH_HANDOFFS || 10_000);
const ENTRIES = Number(process.env.BATON_BENCH_SEARCH_ENTRIES || 1_000_000);
const RUNS = 20;

// The most frequent words first; past them, made-up words, so the vocabulary has the long tail
// real text has (Zipf's law: the word of rank r is about 1/r as frequent as the commonest).
const COMMON = `the to and of a in is for that it on with this we be as not are at by from but or have an
  will can so if should was when test run file code all one use new need which also after then than
  only into just data there would build any error user more first now up out our because what same
  change api before value server request fix each time read used page next check still add make
  state call via return write while work case type list query path option config open step done
  thread entry review release session token cache index merge branch commit schema field client
  decision question progress context task migration deploy database table column route handler
  model agent prompt queue worker event stream socket retry timeout limit budget metric log trace
  refresh rotation expire auth login cookie header body payload parse render component hook layout
  style theme mobile desktop keyboard shortcut search filter sort page pagination cursor offset`
  .split(/\s+/)
  .filter(Boolean);
const VOCABULARY_SIZE = 20_000;
const SYLLABLES = ["ka", "lo", "mi", "ren", "tas", "vo", "qui", "zel", "dor", "pha", "nu", "ex", "bri", "sol", "gan", "ty"];

function madeUpWord(rank: number): string {
  let word = "";
  for (let value = rank; word.length < 5 || value > 0; value = Math.floor(value / SYLLABLES.length)) {
    word += SYLLABLES[value % SYLLABLES.length];
  }
  return word;
}

const vocabulary = Array.from({ length: VOCABULARY_SIZE }, (_, rank) => COMMON[rank] ?? madeUpWord(rank));
// Cumulative Zipf weights (exponent 1), searched by bisection for each word drawn.
const cumulative: number[] = [];
for (let rank = 0, sum = 0; rank < VOCABULARY_SIZE; rank++) cumulative.push((sum += 1 / (rank + 1)));

function drawWord(next: () => number): string {
  const target = next() * cumulative[cumulative.length - 1];
  let low = 0;
  let high = cumulative.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (cumulative[middle] < target) low = middle + 1;
    else high = middle;
  }
  return vocabulary[low];
}

const PHRASES = ["refresh token rotation", "the migration failed on the staging database", "rate limit exceeded", "rollback plan"];

/** 10 to 50 words of prose, now and then one of the phrases people search for. */
function prose(next: () => number): string {
  const words = Array.from({ length: 10 + Math.floor(next() * 41) }, () => drawWord(next));
  if (next() < 0.01) words.splice(Math.floor(next() * words.length), 0, PHRASES[Math.floor(next() * PHRASES.length)]);
  return `${words.join(" ")}.`;
}

/**
 * Planted in a few entries (about one in 100,000), so a search's answer can be checked against
 * the rows themselves: a word found nowhere else, and common words in an order found nowhere else.
 */
const PLANTED_WORD = "zephyrquill";
const PLANTED_PHRASE = "cookie budget socket";
const plantedContent = (index: number, next: () => number) => {
  const text = prose(next);
  if (index % 99_991 === 17) return `${text} ${PLANTED_WORD}`;
  if (index % 77_773 === 29) return `${PLANTED_PHRASE} ${text}`;
  return text;
};
/** Changes when the generated rows do, so a kept database of an older fill is built again. */
const FIXTURE_VERSION = 2;

const title = (index: number, next: () => number) => `${drawWord(next)} ${drawWord(next)} ${madeUpWord(index + 7)} ${drawWord(next)}`.slice(0, 200);

type Search = { label: string; options: FindHandoffsOptions; planted?: string };

/** Searches people type, from rare to common words, with filters and paging, and the worst cases. */
const SEARCHES: Search[] = [
  { label: "rare word", options: { q: vocabulary[12_000] } },
  { label: "uncommon word", options: { q: vocabulary[2_000] } },
  { label: "word of rank 300", options: { q: vocabulary[300] } },
  { label: "word of rank 100", options: { q: vocabulary[100] } },
  { label: "two words", options: { q: `${vocabulary[150]} ${vocabulary[400]}` } },
  { label: "phrase", options: { q: '"refresh token rotation"' } },
  { label: "long phrase", options: { q: '"migration failed on the staging"' } },
  { label: "prefix", options: { q: "rollb*" } },
  { label: "prefix of a made-up word", options: { q: `${vocabulary[3_000].slice(0, 4)}*` } },
  { label: "word + status + unread", options: { q: vocabulary[500], status: "active", unread: "chat" } },
  // A filter narrows the candidates before the cap: it reads up to FILTERED_SEARCH_SCAN matches.
  { label: "worst filtered: commonest + project", options: { q: vocabulary[0], project: "hlg" } },
  { label: "word of rank 100 + completed", options: { q: vocabulary[100], status: "completed" } },
  // Too few of the newest 1,000 matches pass these filters to fill a page: the search reads 2,000.
  { label: "worst filtered: deeper look", options: { q: vocabulary[100], status: "completed", project: "hlg" } },
  { label: "word, page 3", options: { q: vocabulary[200], page: 3 } },
  { label: "a title's made-up word", options: { q: madeUpWord(4_321 + 7) } },
  { label: "worst: the commonest word", options: { q: vocabulary[0] } },
  { label: "worst: word of rank 10", options: { q: vocabulary[9] } },
  { label: "3-letter prefix of it", options: { q: `${vocabulary[0]}*` } },
  { label: "3-letter prefix", options: { q: "dor*" } },
  { label: "planted word", options: { q: PLANTED_WORD }, planted: PLANTED_WORD },
  { label: "planted phrase", options: { q: `"${PLANTED_PHRASE}"` }, planted: PLANTED_PHRASE },
];

/** The handoffs whose entries hold `text`, read from the rows (not the index). */
function handoffsHolding(text: string): string[] {
  const sqlite = new Database(databaseFile(), { readonly: true });
  try {
    return (sqlite.prepare("SELECT DISTINCT handoff_id FROM handoff_entries WHERE instr(content, ?) > 0").all(text) as { handoff_id: string }[])
      .map((row) => row.handoff_id)
      .sort();
  } finally {
    sqlite.close();
  }
}

/** Runs the mix on the database DATABASE_URL names; figures named with `engine`'s prefix. */
async function measure(engine: string, truth: Map<string, string[]>): Promise<Figure[]> {
  console.log(`${engine}:`);
  const all: number[] = [];
  let slowest = { label: "", value: 0 };
  for (const search of SEARCHES) {
    const samples = await timeIt(RUNS, () => findHandoffs(search.options));
    all.push(...samples);
    const page = await findHandoffs(search.options);
    const value = median(samples);
    if (value > slowest.value) slowest = { label: search.label, value };
    let check = "";
    if (search.planted) {
      const expected = truth.get(search.planted)!;
      if (expected.length > 200) throw new Error(`${search.planted} was planted in ${expected.length} handoffs: more than one page of 200 can show`);
      const whole = await findHandoffs({ ...search.options, perPage: 200 });
      const found = whole.items.map((item) => item.id).sort();
      if (whole.capped || JSON.stringify(found) !== JSON.stringify(expected)) {
        throw new Error(`${engine}: ${search.label} found ${found.length} handoffs${whole.capped ? " (capped)" : ""}, the rows say ${expected.length}: ${found} vs ${expected}`);
      }
      check = ` · all ${expected.length} planted handoffs found, nothing else`;
    }
    const total = `${page.total.toLocaleString("en")}${page.capped ? "+" : ""}`;
    console.log(`  ${search.label.padEnd(36)} ${JSON.stringify(search.options.q).padEnd(36)} ${ms(value).padStart(9)} · ${total} handoffs match${check}`);
  }
  const p50 = median(all);
  const p95 = percentile(all, 0.95);
  console.log(`  p50 ${ms(p50)} · p95 ${ms(p95)} over ${all.length} searches · slowest: ${slowest.label} ${ms(slowest.value)} (its median)`);
  const prefix = engine === "SQLite" ? "" : `${engine} `;
  const scale = ENTRIES >= 10_000_000 ? " at 10M entries" : "";
  return [
    { name: `${prefix}search p50${scale}`, value: p50, unit: "ms" },
    { name: `${prefix}search p95${scale}`, value: p95, unit: "ms" },
    { name: `${prefix}slowest search${scale}`, value: slowest.value, unit: "ms" },
  ];
}

/** A folder holding a database built by an earlier run of this size, or null to build one. */
function keptDatabase(): string | null {
  const kept = process.env.BATON_BENCH_SEARCH_KEEP;
  if (!kept) return null;
  fs.mkdirSync(kept, { recursive: true });
  process.env.BATON_DATA_DIR = kept;
  process.env.DATABASE_URL = `file:${path.join(kept, "baton.db")}`;
  return kept;
}

/** Copies the SQLite database into a fresh PostgreSQL 15 and measures the same mix there. */
async function onPostgres(truth: Map<string, string[]>): Promise<Figure[]> {
  const sqliteUrl = process.env.DATABASE_URL!;
  const cluster = await startPostgresCluster();
  try {
    const url = await cluster.createDatabase("search");
    const copyStart = performance.now();
    await copyData({ from: sqliteUrl, to: url });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    // What autovacuum does to a table after a bulk load: statistics for the planner, and the
    // visibility map that lets counts read the (handoff_id, seq) index alone.
    await client.query("VACUUM ANALYZE");
    const { rows } = await client.query<{ bytes: string }>("SELECT pg_database_size(current_database()) AS bytes");
    await client.end();
    console.log(`copied into PostgreSQL 15 and analyzed in ${ms(performance.now() - copyStart)} (database ${(Number(rows[0].bytes) / 2 ** 20).toFixed(0)} MiB)`);
    process.env.DATABASE_URL = url;
    return await measure("PostgreSQL", truth);
  } finally {
    await closeDatabase();
    process.env.DATABASE_URL = sqliteUrl;
    cluster.destroy();
  }
}

export async function run() {
  const kept = keptDatabase();
  const dir = kept ?? makeTemporaryDataDir("search");
  const sizeMark = path.join(dir, "built");
  const size = `${HANDOFFS} handoffs, ${ENTRIES} entries, fixture ${FIXTURE_VERSION}`;
  const engines = (process.env.BATON_BENCH_SEARCH_ENGINES || "sqlite,postgres").split(",");
  try {
    let buildMs = 0;
    if (!kept || !fs.existsSync(sizeMark) || fs.readFileSync(sizeMark, "utf8") !== size) {
      fs.rmSync(sizeMark, { force: true });
      for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(databaseFile() + suffix, { force: true });
      await ensureMigrated();
      const buildStart = performance.now();
      fillHandoffs(HANDOFFS, ENTRIES, { title, content: plantedContent, batch: 1_000 });
      buildMs = performance.now() - buildStart;
      fs.writeFileSync(sizeMark, size);
    } else {
      await ensureMigrated();
    }
    const bytes = fs.statSync(databaseFile()).size;
    const sqlite = new Database(databaseFile(), { readonly: true });
    const indexPages = (sqlite.prepare("SELECT SUM(pgsize) AS bytes FROM dbstat WHERE name LIKE '%search%'").get() as { bytes: number }).bytes;
    sqlite.close();
    console.log(
      `${buildMs ? "built" : "reused"} ${HANDOFFS.toLocaleString("en")} handoffs / ${ENTRIES.toLocaleString("en")} entries through the triggers${buildMs ? ` in ${ms(buildMs)}` : ""} ` +
        `(database ${(bytes / 2 ** 20).toFixed(0)} MiB, of which the search index ${(indexPages / 2 ** 20).toFixed(0)} MiB)`,
    );
    const truth = new Map([PLANTED_WORD, PLANTED_PHRASE].map((text) => [text, handoffsHolding(text)]));
    const figures: Figure[] = [];
    if (engines.includes("sqlite")) figures.push(...(await measure("SQLite", truth)));
    await closeDatabase();
    if (engines.includes("postgres")) figures.push(...(await onPostgres(truth)));
    printReport(figures);
  } finally {
    await closeDatabase();
    if (!kept) fs.rmSync(dir, { recursive: true, force: true });
  }
}
