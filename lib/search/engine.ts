import "server-only";
import type { Tx } from "../database";
import type { SearchTerm } from "./query";
import type { SearchMatch } from "./types";

/** A handoff a search found, as the history's page query hands it back for its marked match. */
export type SearchHit = { handoffId: string; title: string; seq: number | null };

/**
 * What the history's query needs from an engine's search index: SQLite's FTS5 (./fts5.ts) or
 * PostgreSQL's tsvector indexes (./postgres.ts), chosen by `tx.engine` (./index.ts).
 */
export type SearchEngine = {
  /**
   * WITH clauses defining `search_hits(handoff_id, score, seq)` for `terms` (at least one):
   * each handoff among the newest SEARCH_MATCH_LIMIT matching entries and as many matching
   * titles or kept summaries, once, `score` lower for a better match, `seq` its best matching
   * entry (null when only its title or kept summary matched); and `search_capped(capped)`, one
   * row, 1 when either kind had more matches than that; with the values of their `?`, in order.
   */
  hits(tx: Tx, terms: SearchTerm[]): Promise<{ cte: string; params: unknown[] }>;
  /** The marked title and excerpt of each hit of one page. */
  matchesIn(tx: Tx, terms: SearchTerm[], hits: SearchHit[]): Promise<Map<string, SearchMatch>>;
};
