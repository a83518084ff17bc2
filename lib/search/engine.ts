import "server-only";
import type { Tx } from "../database";
import type { SearchTerm } from "./query";
import type { SearchMatch } from "./types";

/** A handoff a search found, as the history's page query hands it back for its marked match. */
export type SearchHit = { handoffId: string; title: string; seq: number | null };

/**
 * One search's hits, for the history's page query, and what its page of them matched.
 * `matchesIn` runs in the same transaction and reuses what `hits` prepared (PostgreSQL's parsed
 * query), so a search prepares its terms once.
 */
export type FoundHits = {
  /**
   * WITH clauses defining `search_hits(handoff_id, score, seq)`: each handoff among the newest
   * SEARCH_MATCH_LIMIT matching entries and as many matching titles or kept summaries, once,
   * `score` lower for a better match, `seq` its best matching entry (null when only its title or
   * kept summary matched); and `search_capped(capped)`, one row, 1 when either kind had more
   * matches than that.
   */
  cte: string;
  /** The values of the clauses' `?`, in order. */
  params: unknown[];
  /** The marked title and excerpt of each hit of one page. */
  matchesIn(hits: SearchHit[]): Promise<Map<string, SearchMatch>>;
};

/**
 * The handoffs a filtered search keeps: conditions over `h` (the handoff's row) and `s` (its
 * `handoff_sources` row, if any), all of which must hold, and the values of their `?`, in order.
 */
export type HandoffFilter = { conditions: string[]; params: unknown[] };

/** A filtered search: its filter, and how many of each index's newest matches it reads. */
export type FilteredScan = { filter: HandoffFilter; scan: number };

/** A condition true when `filter` admits the handoff `handoffOf` (an SQL expression) names. */
export const admits = (filter: HandoffFilter, handoffOf: string) =>
  `EXISTS (SELECT 1 FROM handoffs h LEFT JOIN handoff_sources s ON s.handoff_id = h.id WHERE h.id = ${handoffOf}${filter.conditions.map((condition) => ` AND ${condition}`).join("")})`;

/**
 * What the history's query needs from an engine's search index: SQLite's FTS5 (./fts5.ts) or
 * PostgreSQL's tsvector indexes (./postgres.ts), chosen by `tx.engine` (./index.ts).
 */
export type SearchEngine = {
  /**
   * The hits of `terms` (at least one), in `tx`; with `within`, only of the handoffs its filter
   * admits, among the newest `scan` matches of each index.
   */
  hits(tx: Tx, terms: SearchTerm[], within: FilteredScan | null): Promise<FoundHits>;
};
