/**
 * lib/search: full-text search over handoff titles, entries and kept summaries. Owns the search
 * index (the FTS5 tables, `handoff_search_texts` and `entry_search_owners`, kept by triggers;
 * see the full_text_search migration); lib/handoffs/find-handoffs.ts asks it which handoffs
 * match and what to show of them. Client code imports ./types and ./query directly, never this
 * barrel.
 */
import "server-only";
import type { Sql } from "../sqlite";
import { fts5QueryOf, SEARCH_HITS_CTE, searchMatchesIn } from "./fts5";
import type { SearchTerm } from "./query";
import type { SearchMatch } from "./types";

/**
 * What the history's query needs from a search engine. `engine` is SQLite's (FTS5); a PostgreSQL
 * one would write the same terms as a tsquery, find hits through tsvector columns with GIN
 * indexes ranked by ts_rank, and mark excerpts with ts_headline, behind this same shape.
 */
export type SearchEngine = {
  /** The engine's query for what a person typed (lib/search/query.ts); null: nothing to look for. */
  queryOf(terms: SearchTerm[]): string | null;
  /** WITH clauses defining `search_hits(handoff_id, score, seq)` for the query bound as `@match`. */
  hitsCte: string;
  /** The marked title and excerpt of each hit of one page. */
  matchesIn(tx: Sql, match: string, hits: { handoffId: string; title: string; seq: number | null }[]): Map<string, SearchMatch>;
};

export const engine: SearchEngine = { queryOf: fts5QueryOf, hitsCte: SEARCH_HITS_CTE, matchesIn: searchMatchesIn };

export { compactSearchIndexIn, fts5QueryOf, keepSummaryFindableIn, keptSummariesIn } from "./fts5";
export { MAX_SEARCH_LENGTH, MAX_SEARCH_TERMS, parseSearchQuery, type SearchTerm } from "./query";
export type * from "./types";
