import "server-only";
import type { Tx } from "../database";
import type { ClientSide, EntryType } from "../handoffs/schemas";
import { highlightedExcerpt, highlightedText, MATCH_END, MATCH_START } from "./highlight";
import type { SearchTerm } from "./query";
import type { SearchEngine, SearchHit } from "./engine";
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
 * `search_hits(handoff_id, score, seq)`: every handoff whose title, kept summary or one of whose
 * entries matches the query (bound twice), scored by its best match (bm25, lower is better),
 * with the seq of its best matching entry (null when only its title or summary matched). The
 * matches are materialized first: bm25() can only be computed while FTS5 reads its matches, not
 * inside an aggregate or a join the planner turned around. Entries are grouped by their owner's
 * small integer id (entry_search_owners).
 */
const SEARCH_HITS_CTE = `entry_matches AS MATERIALIZED (
  SELECT rowid AS seq, bm25(entry_search) AS score FROM entry_search WHERE entry_search MATCH ?
),
text_matches AS MATERIALIZED (
  SELECT rowid AS text_id, bm25(handoff_search, ${TITLE_WEIGHT}, 1) AS score FROM handoff_search WHERE handoff_search MATCH ?
),
text_hits(text_id, score, seq) AS (
  SELECT text_id, MIN(score), MAX(seq) FROM (
    SELECT text_id, score, NULL AS seq FROM text_matches
    UNION ALL
    -- The bare seq comes from the row MIN() picked: SQLite's rule for one min() or max().
    SELECT o.text_id, MIN(m.score), m.seq FROM entry_matches m JOIN entry_search_owners o ON o.seq = m.seq GROUP BY o.text_id
  ) GROUP BY text_id
),
search_hits(handoff_id, score, seq) AS (
  SELECT t.handoff_id, hits.score, hits.seq FROM text_hits hits JOIN handoff_search_texts t ON t.id = hits.text_id
)`;

/** Words around a match in an excerpt (FTS5 allows up to 64). */
export const EXCERPT_TOKENS = 24;
const ELLIPSIS = "…";

type ExcerptRow = { text: string; type: EntryType; from_client: ClientSide; number: number };
type TextRow = { title: string; summary: string | null };

/**
 * What one page of hits matched: the title with its words marked, and a passage of the best
 * matching entry (else of the kept summary). One lookup per handoff, by rowid.
 */
async function searchMatchesIn(tx: Tx, terms: SearchTerm[], hits: SearchHit[]): Promise<Map<string, SearchMatch>> {
  const match = fts5QueryOf(terms);
  const matches = new Map<string, SearchMatch>();
  const excerptOf = async (hit: SearchHit, summary: string | null | undefined): Promise<SearchExcerpt | null> => {
    const entry =
      hit.seq === null
        ? undefined
        : await tx.get<ExcerptRow>(
            `SELECT snippet(entry_search, 0, ?, ?, ?, ?) AS text, e.type, e.from_client, e.number
               FROM entry_search JOIN handoff_entries e ON e.seq = entry_search.rowid
               WHERE entry_search MATCH ? AND entry_search.rowid = ?`,
            [MATCH_START, MATCH_END, ELLIPSIS, EXCERPT_TOKENS, match, hit.seq],
          );
    if (hit.seq !== null && entry) return { in: "entry", seq: hit.seq, number: entry.number, type: entry.type, fromClient: entry.from_client, text: highlightedExcerpt(entry.text) };
    return summary?.includes(MATCH_START) ? { in: "kept_summary", text: highlightedExcerpt(summary) } : null;
  };
  for (const hit of hits) {
    const text = await tx.get<TextRow>(
      `SELECT highlight(handoff_search, 0, ?, ?) AS title,
              CASE WHEN kept_summary IS NULL THEN NULL ELSE snippet(handoff_search, 1, ?, ?, ?, ?) END AS summary
         FROM handoff_search
         WHERE handoff_search MATCH ? AND handoff_search.rowid = (SELECT id FROM handoff_search_texts WHERE handoff_id = ?)`,
      [MATCH_START, MATCH_END, MATCH_START, MATCH_END, ELLIPSIS, EXCERPT_TOKENS, match, hit.handoffId],
    );
    matches.set(hit.handoffId, { title: highlightedText(text?.title ?? hit.title), excerpt: await excerptOf(hit, text?.summary) });
  }
  return matches;
}

export const fts5Engine: SearchEngine = {
  hits: (terms) => {
    const match = fts5QueryOf(terms);
    return { cte: SEARCH_HITS_CTE, params: [match, match] };
  },
  matchesIn: searchMatchesIn,
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
