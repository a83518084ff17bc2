import "server-only";
import { z } from "zod";
import { read, type Tx } from "../database";
import { catchUpEntryIndex, FILTERED_SEARCH_SCAN, parseSearchQuery, SEARCH_MATCH_LIMIT, searchEngineOf, type FoundHits, type SearchMatch, type SearchTerm } from "../search";
import { blankToUndefined, givenOnce, parseInput, wholeNumberParam, type DoorInput } from "../validation";
import { HISTORY_FILTER_FIELDS } from "./history-filters";
import { toHandoffView, type HandoffRow, type HandoffView } from "./views";

export const HISTORY_PAGE_SIZE = 50;

const optionalFilter = <Schema extends z.ZodType>(name: string, schema: Schema) =>
  z.preprocess((value, context) => blankToUndefined(givenOnce(name, value, context)), schema.optional());

const findHandoffsInput = z.object({
  status: optionalFilter("status", HISTORY_FILTER_FIELDS.status),
  project: optionalFilter("project", HISTORY_FILTER_FIELDS.project),
  q: optionalFilter("q", HISTORY_FILTER_FIELDS.q),
  source: optionalFilter("source", HISTORY_FILTER_FIELDS.source),
  unread: optionalFilter("unread", HISTORY_FILTER_FIELDS.unread),
  page: HISTORY_FILTER_FIELDS.page.transform((page) => page ?? 1),
  perPage: wholeNumberParam("perPage", 1, 200).transform((perPage) => perPage ?? HISTORY_PAGE_SIZE),
});

export type FindHandoffsOptions = DoorInput<typeof findHandoffsInput>;

export type HandoffSummary = HandoffView & {
  entryCount: number;
  /** Entries past chat's cursor. */
  chatUnread: number;
  /** Entries past code's cursor. */
  codeUnread: number;
  /** Format the thread was imported from; null for threads started in Baton. */
  sourceFormat: string | null;
  /** With a search (`q`): the title with the matching words marked and where they were found. */
  match: SearchMatch | null;
};

export type HandoffPage = {
  items: HandoffSummary[];
  /** Handoffs found; with `capped`, those among the newest matches, and more match. */
  total: number;
  /**
   * A search that stopped at its newest SEARCH_MATCH_LIMIT matching entries (or titles): older
   * matches exist and are left out; a word more narrows it. Always false without `q`.
   */
  capped: boolean;
  page: number;
  pageCount: number;
  perPage: number;
};

type SummaryRow = HandoffRow & { source_format: string | null; entry_count: number; chat_unread: number; code_unread: number };

const SUMMARY_COLUMNS = `h.id, h.title, h.project, h.chat_last_seen, h.code_last_seen, h.status, h.created_at, h.updated_at, h.closed_at,
  s.format AS source_format,
  (SELECT COUNT(*) FROM handoff_entries e WHERE e.handoff_id = h.id) AS entry_count,
  (SELECT COUNT(*) FROM handoff_entries e WHERE e.handoff_id = h.id AND e.seq > h.chat_last_seen) AS chat_unread,
  (SELECT COUNT(*) FROM handoff_entries e WHERE e.handoff_id = h.id AND e.seq > h.code_last_seen) AS code_unread`;

const UNREAD_BY = {
  chat: "EXISTS (SELECT 1 FROM handoff_entries u WHERE u.handoff_id = h.id AND u.seq > h.chat_last_seen)",
  code: "EXISTS (SELECT 1 FROM handoff_entries u WHERE u.handoff_id = h.id AND u.seq > h.code_last_seen)",
};

type Input = z.output<typeof findHandoffsInput>;
/** The conditions of a WHERE clause (joined by AND) and the values of their `?`, in order. */
type Filters = { conditions: string[]; params: string[] };

const whereOf = (conditions: string[]) => (conditions.length ? `WHERE ${conditions.join(" AND ")}` : "");

function filtersOf(input: Input): Filters {
  const conditions: string[] = [];
  const params: string[] = [];
  const filter = (condition: string, value?: string) => {
    conditions.push(condition);
    if (value !== undefined) params.push(value);
  };
  if (input.status) filter("h.status = ?", input.status);
  if (input.project) filter("h.project = ?", input.project);
  if (input.source === "native") filter("s.handoff_id IS NULL");
  else if (input.source) filter("s.format = ?", input.source);
  if (input.unread) filter(UNREAD_BY[input.unread]);
  return { conditions, params };
}

const summaryOf = (row: SummaryRow, match: SearchMatch | null): HandoffSummary => ({
  ...toHandoffView(row),
  entryCount: row.entry_count,
  chatUnread: row.chat_unread,
  codeUnread: row.code_unread,
  sourceFormat: row.source_format,
  match,
});

const pageOf = (input: Input, items: HandoffSummary[], total: number, capped = false): HandoffPage => ({
  items,
  total,
  capped,
  page: input.page,
  perPage: input.perPage,
  pageCount: Math.max(1, Math.ceil(total / input.perPage)),
});

/**
 * History, most recent activity first. Counts come from covering-index range scans on
 * (handoff_id, seq) for the visible page only, never from loading entries.
 */
async function recentIn(tx: Tx, input: Input, { conditions, params }: Filters): Promise<HandoffPage> {
  const where = whereOf(conditions);
  // Only the source filter reads the join; without it, counting the handoffs alone reads one
  // index instead of looking every handoff up among the sources (5 ms at 100,000 handoffs).
  const sourced = input.source !== undefined;
  const counted = await tx.get<{ total: number }>(
    `SELECT COUNT(*) AS total FROM handoffs h ${sourced ? "LEFT JOIN handoff_sources s ON s.handoff_id = h.id " : ""}${where}`,
    params,
  );
  const rows = await tx.all<SummaryRow>(
    `SELECT ${SUMMARY_COLUMNS} FROM handoffs h LEFT JOIN handoff_sources s ON s.handoff_id = h.id ${where}
     ORDER BY h.updated_at DESC, h.id ASC LIMIT ? OFFSET ?`,
    [...params, input.perPage, (input.page - 1) * input.perPage],
  );
  return pageOf(input, rows.map((row) => summaryOf(row, null)), counted!.total);
}

type SearchRow = SummaryRow & { hit_seq: number | null; total: number; capped: number | boolean };

/**
 * One page of a search's hits (`found`), with the total and whether the search was capped. The
 * hits lead (CROSS JOIN keeps SQLite from reading every handoff a filter admits, such as every
 * active one, and looking each up among the hits); PostgreSQL plans it as any join.
 */
async function hitsPageIn(tx: Tx, input: Input, { conditions, params }: Filters, found: FoundHits): Promise<{ rows: SearchRow[]; total: number; capped: boolean }> {
  const hits = `search_hits hits CROSS JOIN handoffs h LEFT JOIN handoff_sources s ON s.handoff_id = h.id ${whereOf(["h.id = hits.handoff_id", ...conditions])}`;
  const rows = await tx.all<SearchRow>(
    `WITH ${found.cte},
     page AS (SELECT hits.handoff_id, hits.score, hits.seq, h.updated_at, COUNT(*) OVER () AS total FROM ${hits}
              ORDER BY hits.score, h.updated_at DESC, h.id LIMIT ? OFFSET ?)
     SELECT ${SUMMARY_COLUMNS}, page.seq AS hit_seq, page.total, (SELECT capped FROM search_capped) AS capped
       FROM page JOIN handoffs h ON h.id = page.handoff_id LEFT JOIN handoff_sources s ON s.handoff_id = h.id
       ORDER BY page.score, page.updated_at DESC, h.id`,
    [...found.params, ...params, input.perPage, (input.page - 1) * input.perPage],
  );
  // Past the last page (or with no match on this one) no row carries the total: count it.
  const counted =
    rows[0] ??
    (await tx.get<{ total: number; capped: number | boolean }>(
      `WITH ${found.cte} SELECT COUNT(*) AS total, (SELECT capped FROM search_capped) AS capped FROM ${hits}`,
      [...found.params, ...params],
    ))!;
  return { rows, total: counted.total, capped: Boolean(counted.capped) };
}

/**
 * A search: the best match first (the search index's score), then the most recent, among the
 * handoffs of the newest matches (lib/search's SEARCH_MATCH_LIMIT). Filters narrow the candidates
 * before that cap: the newest matches of the handoffs they admit are kept. When those fill less
 * than a page and older matches exist, the search looks further back once, over the newest
 * FILTERED_SEARCH_SCAN matches: reading that deep costs PostgreSQL 60–90 ms for a word in one
 * entry of thirty, so it is spent only where the first look came back thin. The page is cut
 * before its counts and excerpts are computed, so they cost the same at any scale.
 */
async function searchIn(tx: Tx, input: Input, filters: Filters, terms: SearchTerm[]): Promise<HandoffPage> {
  const engine = searchEngineOf(tx.engine);
  const filter = filters.conditions.length > 0 ? filters : null;
  let found = await engine.hits(tx, terms, filter && { filter, scan: SEARCH_MATCH_LIMIT });
  let page = await hitsPageIn(tx, input, filters, found);
  if (filter && page.capped && page.total < input.perPage) {
    found = await engine.hits(tx, terms, { filter, scan: FILTERED_SEARCH_SCAN });
    page = await hitsPageIn(tx, input, filters, found);
  }
  const matches = await found.matchesIn(page.rows.map((row) => ({ handoffId: row.id, title: row.title, seq: row.hit_seq })));
  return pageOf(input, page.rows.map((row) => summaryOf(row, matches.get(row.id) ?? null)), page.total, page.capped);
}

/**
 * The history: every handoff, or those matching `q` (titles, entries and kept summaries, best
 * match first), filtered by status, project, source and unread side, a page at a time.
 */
export async function findHandoffs(options: FindHandoffsOptions = {}): Promise<HandoffPage> {
  const input = parseInput(findHandoffsInput, options);
  const filters = filtersOf(input);
  if (input.q === undefined) return read((tx) => recentIn(tx, input, filters));
  const terms = parseSearchQuery(input.q);
  // Only punctuation: nothing to look for, so nothing matches.
  if (terms.length === 0) return pageOf(input, [], 0);
  await catchUpEntryIndex();
  return read((tx) => searchIn(tx, input, filters, terms));
}

/**
 * Every project tag in use, for the history filter: from one tag to the next on the (project,
 * updated_at) index, one seek per tag, not a read of every handoff (DISTINCT: 5 ms at 100,000).
 */
export async function findProjects(): Promise<string[]> {
  return read(async (tx) =>
    (
      await tx.all<{ project: string }>(
        `WITH RECURSIVE tags (project) AS (
           SELECT MIN(project) FROM handoffs WHERE project IS NOT NULL
           UNION ALL
           SELECT (SELECT MIN(h.project) FROM handoffs h WHERE h.project > tags.project) FROM tags WHERE tags.project IS NOT NULL)
         SELECT project FROM tags WHERE project IS NOT NULL ORDER BY project`,
      )
    ).map((row) => row.project),
  );
}
