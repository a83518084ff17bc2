/**
 * lib/search: full-text search over handoff titles, entries and kept summaries. Owns the search
 * index (the FTS5 tables and `handoff_search_texts`, kept by triggers; see the full_text_search
 * migration); lib/handoffs/find-handoffs.ts asks it which handoffs match and what to show of
 * them. Client code imports ./types and ./query directly, never this barrel.
 */
import "server-only";

export { compactSearchIndexIn, fts5QueryOf, keepSummaryFindableIn, keptSummariesIn, SEARCH_HITS_CTE, searchMatchesIn } from "./fts5";
export { MAX_SEARCH_LENGTH, MAX_SEARCH_TERMS, parseSearchQuery, type SearchTerm } from "./query";
export type * from "./types";
