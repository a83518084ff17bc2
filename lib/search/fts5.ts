import "server-only";
import { placeholders, type Tx } from "../database";
import type { ClientSide, EntryType } from "../handoffs/schemas";
import { highlightedExcerpt, highlightedText, MATCH_END, MATCH_START } from "./highlight";
import { admits, type FilteredScan, type SearchEngine, type SearchHit } from "./engine";
import { prefixIsIndexed, SEARCH_MATCH_LIMIT, wordsOf, type SearchTerm } from "./query";
import type { SearchExcerpt, SearchMatch } from "./types";

/**
 * The SQLite engine of search: FTS5 indexes over entries (`entry_search`) and over titles and
 * kept summaries (`handoff_search`), kept by triggers (prisma/migrations/*_full_text_search).
 * PostgreSQL's answers the same questions with tsvector indexes (./postgres.ts).
 */

/**
 * The terms as an FTS5 query. Each is quoted (its quotes doubled), so nothing a person types
 * is read as FTS5 syntax; a star after the closing quote makes a prefix. Terms side by side
 * must all match one entry (or one title with its kept summary). Null when there is no term.
 */
export function fts5QueryOf(terms: SearchTerm[]): string | null {
  if (terms.length === 0) return null;
  return terms.map((term) => `"${term.text.replaceAll('"', '""')}"${term.prefix ? " *" : ""}`).join(" ");
}

/** In handoff_search, a title's words count this much more than a kept summary's. */
const TITLE_WEIGHT = 4;

/**
 * bm25 weighs a word by how rare it is, and learns that by reading every match of the word in
 * the whole index, once per search: 0.3 s for "the" at ten million entries. So a search ranks
 * its entries with bm25 when each of its words matches at most this many entries (one bounded
 * read each says so); past that, or with a prefix (any number of words), the newest matching
 * entries come first. Titles and kept summaries, one per handoff, are always ranked.
 */
const RANKED_WORD_MATCHES = 20_000;

/** Whether every word of `terms` is a whole word in at most RANKED_WORD_MATCHES entries. */
async function rankable(tx: Tx, terms: SearchTerm[]): Promise<boolean> {
  if (terms.some((term) => term.prefix)) return false;
  for (const word of new Set(terms.flatMap((term) => wordsOf(term.text)))) {
    const counted = await tx.get<{ matches: number }>(
      `SELECT COUNT(*) AS matches FROM (SELECT 1 FROM entry_search WHERE entry_search MATCH ? LIMIT ${RANKED_WORD_MATCHES + 1})`,
      [fts5QueryOf([{ text: word, prefix: false }])],
    );
    if (counted!.matches > RANKED_WORD_MATCHES) return false;
  }
  return true;
}

/**
 * `entry_matches(seq, score)` and `text_matches(text_id, score)`: each index's newest matches,
 * SEARCH_MATCH_LIMIT of them and one more that tells more exist, and `search_capped(capped)`. With
 * `within`, those of the handoffs its filter admits among the newest `within.scan` of each index
 * (one more likewise); the filter is tested once per handoff, not once per match.
 */
function newestMatches(ranked: boolean, within: FilteredScan | null): string {
  const entries = `SELECT rowid AS seq, ${ranked ? "bm25(entry_search)" : "0"} AS score FROM entry_search WHERE entry_search MATCH ? ORDER BY rowid DESC`;
  const texts = `SELECT rowid AS text_id, bm25(handoff_search, ${TITLE_WEIGHT}, 1) AS score FROM handoff_search WHERE handoff_search MATCH ? ORDER BY rowid DESC`;
  const over = (table: string, limit: number) => `(SELECT COUNT(*) FROM ${table}) > ${limit}`;
  if (!within) {
    return `entry_matches AS MATERIALIZED (${entries} LIMIT ${SEARCH_MATCH_LIMIT + 1}),
text_matches AS MATERIALIZED (${texts} LIMIT ${SEARCH_MATCH_LIMIT + 1}),
search_capped(capped) AS (SELECT ${over("entry_matches", SEARCH_MATCH_LIMIT)} OR ${over("text_matches", SEARCH_MATCH_LIMIT)})`;
  }
  return `entry_scan AS MATERIALIZED (
  SELECT m.seq, m.score, o.text_id FROM (${entries} LIMIT ${within.scan + 1}) m JOIN entry_search_owners o ON o.seq = m.seq
),
text_scan AS MATERIALIZED (${texts} LIMIT ${within.scan + 1}),
admitted_texts AS MATERIALIZED (
  SELECT t.id FROM handoff_search_texts t WHERE t.id IN (SELECT text_id FROM entry_scan UNION SELECT text_id FROM text_scan) AND ${admits(within.filter, "t.handoff_id")}
),
entry_matches AS MATERIALIZED (SELECT seq, score FROM entry_scan WHERE text_id IN (SELECT id FROM admitted_texts) ORDER BY seq DESC LIMIT ${SEARCH_MATCH_LIMIT + 1}),
text_matches AS MATERIALIZED (SELECT text_id, score FROM text_scan WHERE text_id IN (SELECT id FROM admitted_texts) ORDER BY text_id DESC LIMIT ${SEARCH_MATCH_LIMIT + 1}),
search_capped(capped) AS (
  SELECT ${over("entry_matches", SEARCH_MATCH_LIMIT)} OR ${over("text_matches", SEARCH_MATCH_LIMIT)} OR ${over("entry_scan", within.scan)} OR ${over("text_scan", within.scan)}
)`;
}

/**
 * `search_hits(handoff_id, score, seq)`: every handoff whose title, kept summary or one of whose
 * entries is among the newest matches (newestMatches), scored by its best match (bm25, lower is
 * better; an entry's score is 0 when the search is not `ranked`, so titles lead and the most
 * recent follow), with the seq of its best matching entry (null when only its title or summary
 * matched). FTS5 reads a term's matches newest first and stops at the limit; bm25 is computed
 * while it reads them, so the matches are materialized first, not inside an aggregate or a join
 * the planner turned around. Entries are grouped by their owner's small integer id
 * (entry_search_owners).
 */
const searchHitsCte = (ranked: boolean, within: FilteredScan | null) => `${newestMatches(ranked, within)},
text_hits(text_id, score, seq) AS (
  SELECT text_id, MIN(score), MAX(seq) FROM (
    SELECT text_id, score, NULL AS seq FROM (SELECT * FROM text_matches ORDER BY text_id DESC LIMIT ${SEARCH_MATCH_LIMIT})
    UNION ALL
    -- The bare seq comes from the row MIN() picked (SQLite's rule for one min() or max()); among equal scores (unranked), one of them.
    SELECT o.text_id, MIN(m.score), m.seq FROM (SELECT * FROM entry_matches ORDER BY seq DESC LIMIT ${SEARCH_MATCH_LIMIT}) m
      JOIN entry_search_owners o ON o.seq = m.seq GROUP BY o.text_id
  ) GROUP BY text_id
),
search_hits(handoff_id, score, seq) AS (
  SELECT t.handoff_id, hits.score, hits.seq FROM text_hits hits JOIN handoff_search_texts t ON t.id = hits.text_id
)`;

/** Words around a match in an excerpt. */
export const EXCERPT_TOKENS = 24;
const ELLIPSIS = "…";
// Words as FTS5's unicode61 tokenizer reads them, roughly (the marks are no part of one).
const WORD = /[\p{L}\p{N}\p{M}]+/gu;

type MarkedRun = { start: number; end: number; key: string; first: number; last: number };

/**
 * A score of a window of EXCERPT_TOKENS words as FTS5's snippet() counts it (1,000 for each
 * different match, 1 for each repeat), over `runs` in order, for windows whose first word only
 * moves forward: each run enters and leaves once.
 */
function windowScores(runs: MarkedRun[]) {
  const seen = new Map<string, number>();
  let distinct = 0;
  let low = 0;
  let high = 0;
  const count = (run: MarkedRun, by: number) => {
    const times = (seen.get(run.key) ?? 0) + by;
    if (times === 0) distinct--;
    if (times === 1 && by === 1) distinct++;
    seen.set(run.key, times);
  };
  return (firstWord: number) => {
    for (; high < runs.length && runs[high].first < firstWord + EXCERPT_TOKENS; high++) count(runs[high], 1);
    for (; low < high && runs[low].first < firstWord; low++) count(runs[low], -1);
    return { score: distinct * 1000 + (high - low - distinct), lastRun: high - 1 };
  };
}

/**
 * A passage of `marked` (the whole text as highlight() marks it) as FTS5's snippet() chooses one:
 * EXCERPT_TOKENS words, the window that holds the most different matches (then the most matches)
 * with its matches centred, or from the start of a sentence when that scores as well with a bonus;
 * an ellipsis where the text was cut; the whole text when it is that short. snippet() itself scores
 * a window at every match by reading every match again, so an entry of 64 KiB repeating the
 * searched word (13,000 matches) cost it a second while the search held the process (a page of
 * 100 such entries took 97 s); this reads each match twice. Runs stand for snippet()'s phrase
 * matches, told apart by their text.
 */
export function passageOf(marked: string): string {
  // The text without its marks, and each marked run's character range in it.
  const parts: string[] = [];
  const runs: MarkedRun[] = [];
  let length = 0;
  let open = -1;
  const close = () => {
    if (open >= 0) runs.push({ start: open, end: length, key: "", first: 0, last: 0 });
    open = -1;
  };
  for (const part of marked.split(/([\uE000\uE001])/)) {
    if (part === MATCH_START) open = open < 0 ? length : open;
    else if (part === MATCH_END) close();
    else {
      parts.push(part);
      length += part.length;
    }
  }
  close();
  const plain = parts.join("");
  for (const run of runs) run.key = plain.slice(run.start, run.end).toLowerCase();
  const words = [...plain.matchAll(WORD)].map((word) => ({ start: word.index, end: word.index + word[0].length }));
  if (words.length <= EXCERPT_TOKENS) return marked;
  // Each run's first and last word (runs and words both in order).
  let at = 0;
  for (const run of runs) {
    while (at < words.length && words[at].end <= run.start) at++;
    run.first = at;
    while (at < words.length && words[at].start < run.end) at++;
    run.last = Math.max(run.first, at - 1);
  }
  const counted = runs.filter((run) => run.first < words.length);
  // Sentences start at the first word and at a word after a '.' or ':' and a space, as FTS5 has it.
  const sentences = words.flatMap((word, index) => (index === 0 || /[.:][ \t\r\n]+$/.test(plain.slice(words[index - 1].end, word.start)) ? [index] : []));
  const fromRun = windowScores(counted);
  const fromSentence = windowScores(counted);
  let best = { score: 0, first: 0 };
  let sentence = 0;
  for (const run of counted) {
    const { score, lastRun } = fromRun(run.first);
    const span = counted[lastRun].last + 1 - run.first;
    const centred = Math.max(0, Math.min(run.first - Math.trunc((EXCERPT_TOKENS - span) / 2), words.length - EXCERPT_TOKENS));
    if (score > best.score) best = { score, first: centred };
    while (sentence + 1 < sentences.length && sentences[sentence + 1] <= run.first) sentence++;
    const start = sentences[sentence];
    if (start < run.first) {
      const bonus = fromSentence(start).score + (start === 0 ? 120 : 100);
      if (bonus > best.score) best = { score: bonus, first: start };
    }
  }
  // A window from a sentence's start may run past the text's end, as snippet()'s does.
  const first = best.first;
  const last = Math.min(first + EXCERPT_TOKENS, words.length) - 1;
  const from = first === 0 ? 0 : words[first].start;
  const to = last === words.length - 1 ? plain.length : words[last].end;
  // The passage's stretch of the text, its runs marked again within it.
  let passage = "";
  let copied = from;
  for (const run of runs) {
    const start = Math.max(run.start, from);
    const stop = Math.min(run.end, to);
    if (start >= stop) continue;
    passage += `${plain.slice(copied, start)}${MATCH_START}${plain.slice(start, stop)}${MATCH_END}`;
    copied = stop;
  }
  passage += plain.slice(copied, to);
  return `${first > 0 ? ELLIPSIS : ""}${passage}${last < words.length - 1 ? ELLIPSIS : ""}`;
}

type ExcerptRow = { id: number; text: string };
type EntryRow = { seq: number; type: EntryType; from_client: ClientSide; number: number };
type TextRow = { id: number; title: string; summary: string | null };

/**
 * Rows of `table` (an FTS5 index) among `rowids` that match, with `columns` (highlight() of
 * each). FTS5 sets a query up anew for each rowid it is asked for: cheap for a
 * word, but a prefix longer than the indexed one merges every term it starts each time. Then one
 * scan of the rowids' range does it once, and the rowids outside the page are skipped unread (the
 * `+` keeps SQLite from handing the list to FTS5 as lookups). Rowids are cast: better-sqlite3
 * binds a JavaScript number as a real, and FTS5 drops a rowid constraint whose value is not an
 * integer, answering every match instead of the one asked for.
 */
async function matchingRows<Row>(tx: Tx, table: string, columns: string, columnParams: unknown[], match: string, rowids: number[], oneScan: boolean): Promise<Row[]> {
  if (rowids.length === 0) return [];
  const select = `SELECT ${table}.rowid AS id, ${columns} FROM ${table} WHERE ${table} MATCH ?`;
  if (oneScan) {
    return tx.all<Row>(`${select} AND ${table}.rowid BETWEEN CAST(? AS INTEGER) AND CAST(? AS INTEGER) AND +${table}.rowid IN (${placeholders(rowids.length)})`, [
      ...columnParams,
      match,
      Math.min(...rowids),
      Math.max(...rowids),
      ...rowids,
    ]);
  }
  const rows: Row[] = [];
  for (const rowid of rowids) {
    const row = await tx.get<Row>(`${select} AND ${table}.rowid = CAST(? AS INTEGER)`, [...columnParams, match, rowid]);
    if (row) rows.push(row);
  }
  return rows;
}

/**
 * What one page of hits matched: the title with its words marked, and a passage of the best
 * matching entry (else of the kept summary).
 */
async function searchMatchesIn(tx: Tx, terms: SearchTerm[], hits: SearchHit[]): Promise<Map<string, SearchMatch>> {
  const match = fts5QueryOf(terms)!;
  const oneScan = terms.some((term) => term.prefix && !prefixIsIndexed(term));
  const matches = new Map<string, SearchMatch>();
  if (hits.length === 0) return matches;
  const textIds = await tx.all<{ id: number; handoff_id: string }>(`SELECT id, handoff_id FROM handoff_search_texts WHERE handoff_id IN (${placeholders(hits.length)})`, hits.map((hit) => hit.handoffId));
  const texts = await matchingRows<TextRow>(
    tx,
    "handoff_search",
    "highlight(handoff_search, 0, ?, ?) AS title, CASE WHEN kept_summary IS NULL THEN NULL ELSE highlight(handoff_search, 1, ?, ?) END AS summary",
    [MATCH_START, MATCH_END, MATCH_START, MATCH_END],
    match,
    textIds.map((row) => row.id),
    oneScan,
  );
  const seqs = hits.flatMap((hit) => (hit.seq === null ? [] : [hit.seq]));
  const excerpts = await matchingRows<ExcerptRow>(tx, "entry_search", "highlight(entry_search, 0, ?, ?) AS text", [MATCH_START, MATCH_END], match, seqs, oneScan);
  const entries = seqs.length ? await tx.all<EntryRow>(`SELECT seq, type, from_client, number FROM handoff_entries WHERE seq IN (${placeholders(seqs.length)})`, seqs) : [];
  const textById = new Map(texts.map((text) => [text.id, text]));
  const textOf = new Map(textIds.map((row) => [row.handoff_id, textById.get(row.id)]));
  const markedOf = new Map(excerpts.map((row) => [row.id, row.text]));
  const entryOf = new Map(entries.map((row) => [row.seq, row]));
  for (const hit of hits) {
    const text = textOf.get(hit.handoffId);
    const marked = hit.seq === null ? undefined : markedOf.get(hit.seq);
    const entry = hit.seq === null ? undefined : entryOf.get(hit.seq);
    let excerpt: SearchExcerpt | null = null;
    if (hit.seq !== null && marked !== undefined && entry) {
      excerpt = { in: "entry", seq: hit.seq, number: entry.number, type: entry.type, fromClient: entry.from_client, text: highlightedExcerpt(passageOf(marked)) };
    } else if (text?.summary?.includes(MATCH_START)) {
      excerpt = { in: "kept_summary", text: highlightedExcerpt(passageOf(text.summary)) };
    }
    matches.set(hit.handoffId, { title: highlightedText(text?.title ?? hit.title), excerpt });
  }
  return matches;
}

export const fts5Engine: SearchEngine = {
  hits: async (tx, terms, within) => {
    const match = fts5QueryOf(terms);
    return {
      cte: searchHitsCte(await rankable(tx, terms), within),
      params: [match, match, ...(within?.filter.params ?? [])],
      matchesIn: (hits) => searchMatchesIn(tx, terms, hits),
    };
  },
};

/**
 * Rewrites both indexes as one segment each. A delete or an update only records that a row's
 * terms are gone; the terms themselves stay in older segments until FTS5 merges them. After
 * secrets were redacted, this removes their words from the file too (before a VACUUM).
 */
export async function compactFts5In(tx: Tx): Promise<void> {
  await tx.run("INSERT INTO entry_search (entry_search) VALUES ('optimize')");
  await tx.run("INSERT INTO handoff_search (handoff_search) VALUES ('optimize')");
}
