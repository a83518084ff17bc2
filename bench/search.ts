/**
 * Full-text search at scale: 10,000 handoffs and 1,000,000 entries of generated prose (issue 17,
 * acceptance 3: its p50 target is in bench/targets.ts). The entries are written through the database's triggers, as
 * every door writes them, in transactions of 1,000, so the index has the shape real use gives it;
 * then `findHandoffs({ q })`, the query behind the home page's search and
 * `GET /api/handoffs?q=`, runs a mix of searches people type.
 * `BATON_BENCH_SEARCH_ENTRIES=100000` measures a smaller database.
 */
import fs from "node:fs";
import Database from "better-sqlite3";
import { databaseFile } from "../lib/config";
import { findHandoffs, type FindHandoffsOptions } from "../lib/handoffs";
import { closeDatabase } from "../lib/database";
import { ensureMigrated } from "../lib/database/migrate";
import { fillHandoffs } from "./fixtures";
import { printReport } from "./report";
import { makeTemporaryDataDir, median, ms, timeIt } from "./support";

const HANDOFFS = 10_000;
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

const title = (index: number, next: () => number) => `${drawWord(next)} ${drawWord(next)} ${madeUpWord(index + 7)} ${drawWord(next)}`.slice(0, 200);

/** Searches people type, from rare to common words, with filters and paging. */
const SEARCHES: { label: string; options: FindHandoffsOptions }[] = [
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
  { label: "word, page 3", options: { q: vocabulary[200], page: 3 } },
  { label: "a title's made-up word", options: { q: madeUpWord(4_321 + 7) } },
];
/** The commonest words: in most entries. Reported apart, the worst case rather than a search. */
const WORST: { label: string; options: FindHandoffsOptions }[] = [
  { label: `"${vocabulary[0]}" (in most entries)`, options: { q: vocabulary[0] } },
  { label: `"${vocabulary[9]}" (rank 10)`, options: { q: vocabulary[9] } },
];

export async function run() {
  const dir = makeTemporaryDataDir("search");
  try {
    await ensureMigrated();
    const buildStart = performance.now();
    fillHandoffs(HANDOFFS, ENTRIES, { title, content: (_, next) => prose(next), batch: 1_000 });
    const buildMs = performance.now() - buildStart;
    const bytes = fs.statSync(databaseFile()).size;
    const sqlite = new Database(databaseFile(), { readonly: true });
    const indexPages = (sqlite.prepare("SELECT SUM(pgsize) AS bytes FROM dbstat WHERE name LIKE '%search%'").get() as { bytes: number }).bytes;
    sqlite.close();
    console.log(
      `built ${HANDOFFS.toLocaleString("en")} handoffs / ${ENTRIES.toLocaleString("en")} entries through the triggers in ${ms(buildMs)} ` +
        `(database ${(bytes / 2 ** 20).toFixed(0)} MiB, of which the search index ${(indexPages / 2 ** 20).toFixed(0)} MiB)`,
    );

    const all: number[] = [];
    for (const search of SEARCHES) {
      const samples = await timeIt(RUNS, () => findHandoffs(search.options));
      all.push(...samples);
      const { total } = await findHandoffs(search.options);
      console.log(`  ${search.label.padEnd(28)} ${JSON.stringify(search.options.q).padEnd(36)} ${ms(median(samples)).padStart(9)} · ${total.toLocaleString("en")} handoffs match`);
    }
    const sorted = [...all].sort((a, b) => a - b);
    const p50 = median(all);
    const p95 = sorted[Math.floor(sorted.length * 0.95)];
    console.log(`search p50 ${ms(p50)} · p95 ${ms(p95)} over ${all.length} searches`);
    for (const search of WORST) {
      const samples = await timeIt(5, () => findHandoffs(search.options), 1);
      console.log(`  worst case: ${search.label} ${ms(median(samples))}`);
    }
    printReport([{ name: "search p50", value: p50, unit: "ms" }]);
  } finally {
    await closeDatabase();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
