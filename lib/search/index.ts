/**
 * lib/search: full-text search over handoff titles, entries and kept summaries. Owns the search
 * index (on SQLite the FTS5 tables, on PostgreSQL GIN indexes on tsvectors; on both
 * `handoff_search_texts` and `entry_search_owners`, kept by triggers, except SQLite's entry index,
 * written in batches by ./pending.ts: see the full_text_search and search_index_in_batches
 * migrations); lib/handoffs/find-handoffs.ts asks it which handoffs match and what to show of
 * them. Client code imports ./types and ./query directly, never this barrel.
 */
import "server-only";
import type { Engine, Tx } from "../database";
import type { StoredTextRedactor } from "../secrets/stored-redactor";
import type { SearchEngine } from "./engine";
import { compactFts5In, fts5Engine } from "./fts5";
import { postgresEngine } from "./postgres";

export { catchUpEntryIndex } from "./pending";

/** The search engine of a database engine. */
export function searchEngineOf(engine: Engine): SearchEngine {
  return engine === "postgres" ? postgresEngine : fts5Engine;
}

/**
 * Keeps a closing thread findable by what its kept bundle says: the entries are about to be
 * wiped, the bundle's summary stays (in the caller's transaction, beside the archive itself).
 */
export async function keepSummaryFindableIn(tx: Tx, handoffId: string, summary: string): Promise<void> {
  await tx.run("UPDATE handoff_search_texts SET kept_summary = ? WHERE handoff_id = ?", [summary, handoffId]);
}

/**
 * For the sweep of stored secrets (lib/jobs/secrets-sweep.ts): kept summaries, rewritten where
 * `redactor` says, in the caller's transaction. Answers the handoffs whose summary it rewrote.
 */
export async function redactKeptSummariesIn(tx: Tx, redactor: StoredTextRedactor): Promise<string[]> {
  const rows = await tx.all<{ handoff_id: string; kept_summary: string }>("SELECT handoff_id, kept_summary FROM handoff_search_texts WHERE kept_summary IS NOT NULL");
  const rewritten: string[] = [];
  for (const { handoff_id, kept_summary } of rows) {
    const redacted = redactor(`kept summary of ${handoff_id}`, kept_summary);
    if (redacted === null) continue;
    await keepSummaryFindableIn(tx, handoff_id, redacted);
    rewritten.push(handoff_id);
  }
  return rewritten;
}

/**
 * After secrets were redacted, removes their words from the index's storage too. SQLite: FTS5
 * rewrites its segments (then the caller VACUUMs the file). PostgreSQL: nothing to do inside a
 * transaction; the GIN indexes drop a rewritten row's old entries when VACUUM reaches the table,
 * with its old row version.
 */
export async function compactSearchIndexIn(tx: Tx): Promise<void> {
  if (tx.engine === "sqlite") await compactFts5In(tx);
}

export type { FoundHits, SearchEngine, SearchHit } from "./engine";
export { fts5QueryOf } from "./fts5";
export { tsqueryOf } from "./postgres";
export { FILTERED_SEARCH_SCAN, MAX_SEARCH_LENGTH, MAX_SEARCH_WORDS, MIN_PREFIX_LENGTH, parseSearchQuery, SEARCH_MATCH_LIMIT, type SearchTerm } from "./query";
export type * from "./types";
