import "server-only";
import { placeholders, type Tx } from "../database";
import type { ClientSide, EntryType } from "../handoffs/schemas";
import { admits, type FilteredScan, type SearchEngine, type SearchHit } from "./engine";
import { SEARCH_MATCH_LIMIT, type SearchTerm } from "./query";
import { EXCERPT_TOKENS } from "./fts5";
import { highlightedExcerpt, highlightedText, MATCH_END, MATCH_START } from "./highlight";
import type { SearchExcerpt, SearchMatch } from "./types";

/**
 * The PostgreSQL engine of search, behind the same shape as FTS5's (./fts5.ts): GIN indexes on
 * entries' stored `search_vector` (`baton_search_entry(content)`) and on
 * `baton_search_text(title, kept_summary)`, tsvectors in the
 * `baton_search` configuration (English stems, accents folded: "refreshing" finds "refresh",
 * "cafe" finds "café"), kept with the tables' rows; see
 * prisma/postgres/migrations/*_full_text_search. Where it differs from FTS5:
 * - Stems are Snowball's English (Porter's revision): a few words stem differently.
 * - A prefix phrase (`"refresh tok"*`) treats each of its words as a prefix, not only the last.
 * - Ranking is ts_rank (how often the words occur, divided by 1 + the log of the text's length)
 *   instead of bm25 (which also weighs how rare a word is across all texts); a title's words
 *   count four times an entry's or a kept summary's, as FTS5's title weight does.
 */

/**
 * Characters `baton_search_words` (prisma/postgres/migrations/*_search_words_in_paths and
 * *_search_words_signed_numbers) turns into spaces before the parser sees a text, so that paths,
 * e-mail addresses, URLs, dotted names, angle brackets and the numbers after a `-` or a `+`
 * (`2026-11-29`, `BAT-123`: the parser reads `-29` as one signed number) are words, as FTS5 reads
 * them. A search's terms are read the same way.
 */
const SEARCH_WORD_BREAKS = /[/.@<&+-]/g;
const searchWordsOf = (text: string) => text.replace(SEARCH_WORD_BREAKS, " ");

/**
 * The terms as a tsquery (to_tsquery's input): each term one quoted operand (quotes and
 * backslashes doubled, so nothing typed is tsquery syntax), which the configuration splits into
 * words joined as a phrase; `:*` makes a prefix; terms joined by `&`.
 */
export function tsqueryOf(terms: SearchTerm[]): string | null {
  if (terms.length === 0) return null;
  return terms.map((term) => `'${searchWordsOf(term.text).replaceAll("\\", "\\\\").replaceAll("'", "''")}'${term.prefix ? ":*" : ""}`).join(" & ");
}

/**
 * The search's tsquery, parsed once per search by `parsedQuery` and passed as a tsquery value. A
 * search statement is prepared, and after a few runs PostgreSQL may keep a generic plan for it;
 * `to_tsquery('baton_search', ?)` inside it was then parsed again for every row tested, ranked
 * or given a passage (a page's 50 passages took 7 ms, 1.3 ms with the query parsed once).
 */
const QUERY = "?::tsquery";
/** ts_rank's weights for D, C, B, A: entries and kept summaries are D, titles A. */
const RANK = (vector: string) => `ts_rank('{0.25, 0.25, 0.25, 1}', ${vector}, ${QUERY}, 1)`;

/**
 * `entry_candidates` and `text_candidates`: the newest SEARCH_MATCH_LIMIT matching entries and
 * titles or kept summaries, and one more of each that tells more exist, and
 * `search_capped(capped)`. With `within`, those of the handoffs it admits among the newest
 * `within.scan` of each (one more likewise), the filter tested once per handoff, as FTS5's.
 */
function newestCandidates(within: FilteredScan | null): string {
  const entries = `SELECT e.handoff_id, e.seq, e.search_vector FROM handoff_entries e WHERE e.search_vector @@ ${QUERY} ORDER BY e.seq DESC`;
  const texts = `SELECT t.id, t.handoff_id, t.title, t.kept_summary FROM handoff_search_texts t WHERE baton_search_text(t.title, t.kept_summary) @@ ${QUERY} ORDER BY t.id DESC`;
  const over = (table: string, limit: number) => `(SELECT COUNT(*) FROM ${table}) > ${limit}`;
  if (!within) {
    return `entry_candidates AS MATERIALIZED (${entries} LIMIT ${SEARCH_MATCH_LIMIT + 1}),
text_candidates AS MATERIALIZED (${texts} LIMIT ${SEARCH_MATCH_LIMIT + 1}),
search_capped(capped) AS (SELECT ${over("entry_candidates", SEARCH_MATCH_LIMIT)} OR ${over("text_candidates", SEARCH_MATCH_LIMIT)})`;
  }
  return `entry_scan AS MATERIALIZED (${entries} LIMIT ${within.scan + 1}),
text_scan AS MATERIALIZED (${texts} LIMIT ${within.scan + 1}),
admitted AS MATERIALIZED (
  SELECT a.handoff_id FROM (SELECT handoff_id FROM entry_scan UNION SELECT handoff_id FROM text_scan) a WHERE ${admits(within.filter, "a.handoff_id")}
),
entry_candidates AS MATERIALIZED (SELECT * FROM entry_scan WHERE handoff_id IN (SELECT handoff_id FROM admitted) ORDER BY seq DESC LIMIT ${SEARCH_MATCH_LIMIT + 1}),
text_candidates AS MATERIALIZED (SELECT * FROM text_scan WHERE handoff_id IN (SELECT handoff_id FROM admitted) ORDER BY id DESC LIMIT ${SEARCH_MATCH_LIMIT + 1}),
search_capped(capped) AS (
  SELECT ${over("entry_candidates", SEARCH_MATCH_LIMIT)} OR ${over("text_candidates", SEARCH_MATCH_LIMIT)} OR ${over("entry_scan", within.scan)} OR ${over("text_scan", within.scan)}
)`;
}

/**
 * `search_hits(handoff_id, score, seq)` and `search_capped(capped)`, as FTS5's: the candidates
 * (newestCandidates); a handoff's score is its best match's (the negated rank, so lower is
 * better), its seq that of its best matching entry. The planner finds the entries through the GIN
 * index for a rare word, or by walking entries newest first and testing each stored vector for a
 * common one (handoff_entries.search_vector); only the candidates are ranked. Titles are few and
 * parsed as they are tested.
 */
const searchHitsCte = (within: FilteredScan | null) => `${newestCandidates(within)},
entry_hits AS MATERIALIZED (
  SELECT DISTINCT ON (c.handoff_id) c.handoff_id, c.seq, ${RANK("c.search_vector")} AS rank
    FROM (SELECT * FROM entry_candidates ORDER BY seq DESC LIMIT ${SEARCH_MATCH_LIMIT}) c
    ORDER BY c.handoff_id, rank DESC, c.seq DESC
),
text_hits AS MATERIALIZED (
  SELECT c.handoff_id, ${RANK("baton_search_text(c.title, c.kept_summary)")} AS rank
    FROM (SELECT * FROM text_candidates ORDER BY id DESC LIMIT ${SEARCH_MATCH_LIMIT}) c
),
search_hits(handoff_id, score, seq) AS (
  SELECT handoff_id, -MAX(rank), MAX(seq) FROM (
    SELECT handoff_id, rank, seq FROM entry_hits
    UNION ALL
    SELECT handoff_id, rank, NULL FROM text_hits
  ) matches GROUP BY handoff_id
)`;

// ts_headline's options: marks as FTS5's, a passage of about EXCERPT_TOKENS words around the
// best match (one fragment), the whole title marked.
const marks = `StartSel="${MATCH_START}", StopSel="${MATCH_END}"`;
const PASSAGE = `${marks}, MaxFragments=1, MaxWords=${EXCERPT_TOKENS}, MinWords=${EXCERPT_TOKENS / 2}, ShortWord=0`;
const WHOLE = `${marks}, HighlightAll=true`;
const ELLIPSIS = "…";
/** Text before or after a passage that holds no word and is at most this long is shown as it is. */
const EDGE_CHARS = 32;

/**
 * Adds `original`, `lead` and `tail` to `inner`'s rows (each a `source` text and `text`,
 * ts_headline's passage of `baton_search_words(source)`): the passage's stretch of the source
 * itself (the characters baton_search_words made spaces put back in JS), and the text before
 * and after the passage when it holds no word (punctuation, spaces: FTS5's snippet shows those),
 * else null, where the passage was cut. After it, numbers count as no word: ts_headline never ends
 * a passage on one, so `fixed in PR 42` came back as `fixed in PR…`. `OFFSET 0` keeps
 * `inner` a subquery of its own: pulled up into this one, its ts_headline was computed again for
 * each use of `text` below (a page's 50 passages took 7.7 ms, 1.9 ms computed once).
 */
const withEdges = (inner: string, columns: string) => `SELECT ${columns}, p.text,
    CASE WHEN p.at > 0 THEN substr(p.source, p.at, length(p.plain)) END AS original,
    CASE WHEN p.at BETWEEN 1 AND ${EDGE_CHARS + 1} AND to_tsvector('simple', left(p.source, p.at - 1)) = ''
         THEN left(p.source, p.at - 1) END AS lead,
    CASE WHEN p.at > 0 AND length(p.source) - p.at + 1 - length(p.plain) <= ${EDGE_CHARS}
              AND to_tsvector('simple', translate(substr(p.source, p.at + length(p.plain)), '0123456789', '')) = ''
         THEN substr(p.source, p.at + length(p.plain)) END AS tail
  FROM (SELECT m.*, strpos(baton_search_words(m.source), m.plain) AS at
          FROM (SELECT i.*, translate(i.text, U&'\\E000\\E001', '') AS plain FROM (${inner} OFFSET 0) i) m) p`;

/** The page's entry passages, one statement for all of them. */
const entryExcerpts = (count: number) =>
  withEdges(
    `SELECT e.seq, e.content AS source, e.type, e.from_client, e.number, ts_headline('baton_search', baton_search_words(e.content), ${QUERY}, ?) AS text
       FROM handoff_entries e WHERE e.seq IN (${placeholders(count)})`,
    "p.seq, p.type, p.from_client, p.number",
  );
/**
 * The page's marked titles and kept-summary passages, one statement for all of them. A title is
 * marked only when it matched (with its kept summary), as FTS5's: ts_headline marks any word of
 * the query, so a thread found by an entry had the entry's words marked in its title too.
 */
const textMatches = (count: number) =>
  withEdges(
    `SELECT t.handoff_id, t.title AS original_title,
            CASE WHEN baton_search_text(t.title, t.kept_summary) @@ ${QUERY} THEN ts_headline('baton_search', baton_search_words(t.title), ${QUERY}, ?) ELSE t.title END AS title,
            t.kept_summary AS source,
            CASE WHEN t.kept_summary IS NULL THEN NULL ELSE ts_headline('baton_search', baton_search_words(t.kept_summary), ${QUERY}, ?) END AS text
       FROM handoff_search_texts t WHERE t.handoff_id IN (${placeholders(count)})`,
    "p.handoff_id, p.original_title, p.title",
  );

type Edges = { text: string | null; original: string | null; lead: string | null; tail: string | null };
type ExcerptRow = Edges & { seq: number | string; type: EntryType; from_client: ClientSide; number: number };
type TextRow = Edges & { handoff_id: string; original_title: string; title: string };

/**
 * A ts_headline passage of `baton_search_words(text)` with `original`'s characters (the stretch
 * of the text it shows) in place of its own, its marks kept: the two differ only where
 * baton_search_words put a space for a character, one for one.
 */
function withOriginalCharacters(marked: string, original: string | null): string {
  if (original === null || marked.replace(/[\uE000\uE001]/g, "").length !== original.length) return marked;
  let at = 0;
  return marked.replace(/[^\uE000\uE001]/g, () => original[at++]);
}

// Words as the marks sit beside them (the private-use marks themselves are no part of one).
const WORD = /[\p{L}\p{N}\p{M}]+/gu;
const fold = (word: string) => word.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();

/** Whether a word of the text is a term's word: the same, or the same stem (tokens/token, refreshing/refresh). */
function sameWord(text: string, term: string): boolean {
  const shorter = Math.min(text.length, term.length);
  let common = 0;
  while (common < shorter && text[common] === term[common]) common++;
  return common >= Math.min(shorter, Math.max(3, shorter - 2));
}

/**
 * ts_headline marks each word of the query wherever it stands; FTS5 marks a phrase's words only
 * where they stand as the phrase, as one run. Two marked words with only spaces or punctuation
 * between become one run when they are consecutive words of one of the query's phrases; then a
 * run whose every word is a phrase's, holding no whole phrase and no word of a one-word term, is
 * unmarked (a search for "the migration failed" marked every "the" of the passage). Words compare
 * as stems, roughly: this only decides how marks are drawn.
 */
function markPhrasesAsFts5(marked: string, terms: SearchTerm[]): string {
  const termWords = terms.map((term) => ({ words: (term.text.match(WORD) ?? []).map(fold), prefix: term.prefix }));
  const phrases = termWords.filter((term) => term.words.length > 1);
  if (phrases.length === 0) return marked;
  // PostgreSQL's prefix phrase makes each of its words a prefix.
  const matches = (word: string, termWord: string, prefix: boolean) => (prefix ? word.startsWith(termWord) : sameWord(word, termWord));
  const follows = (before: string, after: string) =>
    phrases.some(({ words, prefix }) => words.slice(1).some((word, index) => matches(before, words[index], prefix) && matches(after, word, prefix)));
  const joined = marked.replace(/(?<=([\p{L}\p{N}\p{M}]+))\uE001([^\p{L}\p{N}\p{M}\uE000\uE001]+)\uE000(?=([\p{L}\p{N}\p{M}]+))/gu, (all, before: string, between: string, after: string) =>
    follows(fold(before), fold(after)) ? between : all,
  );
  const inPhrase = (word: string) => phrases.some(({ words, prefix }) => words.some((termWord) => matches(word, termWord, prefix)));
  const ofOneWordTerm = (word: string) => termWords.some(({ words, prefix }) => words.length === 1 && matches(word, words[0], prefix));
  const holdsPhrase = (words: string[]) =>
    phrases.some((phrase) => words.some((_, at) => phrase.words.every((termWord, index) => at + index < words.length && matches(words[at + index], termWord, phrase.prefix))));
  return joined.replace(/\uE000([^\uE000\uE001]*)\uE001/g, (all, text: string) => {
    const words = (text.match(WORD) ?? []).map(fold);
    const strayPhraseWords = words.length > 0 && words.every(inPhrase) && !words.some(ofOneWordTerm) && !holdsPhrase(words);
    return strayPhraseWords ? text : all;
  });
}

/** A passage with FTS5's ellipses where it was cut, as highlighted runs. */
function passageOf(row: Edges, terms: SearchTerm[]) {
  return highlightedExcerpt(`${row.lead ?? ELLIPSIS}${markPhrasesAsFts5(withOriginalCharacters(row.text ?? "", row.original), terms)}${row.tail ?? ELLIPSIS}`);
}

/** The terms as the configuration parses them (stems, prefixes, phrases), as tsquery text. */
async function parsedQuery(tx: Tx, terms: SearchTerm[]): Promise<string> {
  return (await tx.get<{ query: string }>("SELECT to_tsquery('baton_search', ?)::text AS query", [tsqueryOf(terms)]))!.query;
}

/** What one page of hits matched, as FTS5's: the marked title, a passage of the best entry (else of the kept summary). Two statements a page: titles, passages. */
async function searchMatchesIn(tx: Tx, terms: SearchTerm[], query: string, hits: SearchHit[]): Promise<Map<string, SearchMatch>> {
  const matches = new Map<string, SearchMatch>();
  if (hits.length === 0) return matches;
  const seqs = hits.flatMap((hit) => (hit.seq === null ? [] : [hit.seq]));
  const texts = await tx.all<TextRow>(textMatches(hits.length), [query, query, WHOLE, query, PASSAGE, ...hits.map((hit) => hit.handoffId)]);
  const entries = seqs.length ? await tx.all<ExcerptRow>(entryExcerpts(seqs.length), [query, PASSAGE, ...seqs]) : [];
  const textOf = new Map(texts.map((row) => [row.handoff_id, row]));
  const entryOf = new Map(entries.map((row) => [Number(row.seq), row]));
  for (const hit of hits) {
    const text = textOf.get(hit.handoffId);
    const entry = hit.seq === null ? undefined : entryOf.get(hit.seq);
    let excerpt: SearchExcerpt | null = null;
    if (hit.seq !== null && entry) excerpt = { in: "entry", seq: hit.seq, number: entry.number, type: entry.type, fromClient: entry.from_client, text: passageOf(entry, terms) };
    else if (text?.text?.includes(MATCH_START)) excerpt = { in: "kept_summary", text: passageOf(text, terms) };
    const title = text ? withOriginalCharacters(text.title, text.original_title) : hit.title;
    matches.set(hit.handoffId, { title: highlightedText(markPhrasesAsFts5(title, terms)), excerpt });
  }
  return matches;
}

export const postgresEngine: SearchEngine = {
  // ts_rank weighs no word by its rarity: ranking the candidates reads nothing else.
  hits: async (tx, terms, within) => {
    const query = await parsedQuery(tx, terms);
    return {
      cte: searchHitsCte(within),
      params: [query, query, ...(within?.filter.params ?? []), query, query],
      matchesIn: (hits) => searchMatchesIn(tx, terms, query, hits),
    };
  },
};
