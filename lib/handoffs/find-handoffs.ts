import "server-only";
import { z } from "zod";
import { read } from "../sqlite";
import { SOURCE_FILTERS } from "../formats/types";
import { blankToUndefined, MAX_PAGE, parseInput, wholeNumberParam, type DoorInput } from "../validation";
import { handoffStatusSchema, optionalProjectSchema } from "./schemas";
import { toHandoffView, type HandoffRow, type HandoffView } from "./views";

export const HISTORY_PAGE_SIZE = 50;
const findHandoffsInput = z.object({
  status: z.preprocess(blankToUndefined, handoffStatusSchema.optional()),
  project: optionalProjectSchema,
  q: z.preprocess(blankToUndefined, z.string().trim().max(200, { error: "search must be at most 200 characters" }).optional()),
  source: z.preprocess(
    blankToUndefined,
    z.enum(SOURCE_FILTERS, { error: `source must be one of ${SOURCE_FILTERS.join(", ")}` }).optional(),
  ),
  page: wholeNumberParam("page", 1, MAX_PAGE).transform((page) => page ?? 1),
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
};

export type HandoffPage = {
  items: HandoffSummary[];
  total: number;
  page: number;
  pageCount: number;
  perPage: number;
};

type SummaryRow = HandoffRow & { source_format: string | null; entry_count: number; chat_unread: number; code_unread: number };

/**
 * History, most recent activity first. Counts come from covering-index range scans on
 * (handoff_id, seq) for the visible page only, never from loading entries.
 */
export async function findHandoffs(options: FindHandoffsOptions = {}): Promise<HandoffPage> {
  const input = parseInput(findHandoffsInput, options);
  const conditions: string[] = [];
  const params: Record<string, string | number> = {};
  const filter = (condition: string, name?: string, value?: string) => {
    conditions.push(condition);
    if (name && value !== undefined) params[name] = value;
  };
  if (input.status) filter("h.status = @status", "status", input.status);
  if (input.project) filter("h.project = @project", "project", input.project);
  // instr() rather than LIKE: a title search for "50%" or "a_b" means those characters.
  if (input.q) filter("instr(lower(h.title), lower(@q)) > 0", "q", input.q);
  if (input.source === "native") filter("s.handoff_id IS NULL");
  else if (input.source) filter("s.format = @source", "source", input.source);
  const where = conditions.length ? `WHERE ${conditions.join(" AND ")}` : "";
  return read((tx) => {
    const { total } = tx.statement(`SELECT COUNT(*) AS total FROM handoffs h LEFT JOIN handoff_sources s ON s.handoff_id = h.id ${where}`).get(params) as { total: number };
    const rows = tx
      .statement(
        `SELECT h.id, h.title, h.project, h.chat_last_seen, h.code_last_seen, h.status, h.created_at, h.updated_at, h.closed_at,
           s.format AS source_format,
           (SELECT COUNT(*) FROM handoff_entries e WHERE e.handoff_id = h.id) AS entry_count,
           (SELECT COUNT(*) FROM handoff_entries e WHERE e.handoff_id = h.id AND e.seq > h.chat_last_seen) AS chat_unread,
           (SELECT COUNT(*) FROM handoff_entries e WHERE e.handoff_id = h.id AND e.seq > h.code_last_seen) AS code_unread
         FROM handoffs h LEFT JOIN handoff_sources s ON s.handoff_id = h.id ${where}
         ORDER BY h.updated_at DESC, h.id ASC LIMIT @limit OFFSET @offset`,
      )
      .all({ ...params, limit: input.perPage, offset: (input.page - 1) * input.perPage }) as SummaryRow[];
    const items = rows.map((row) => ({
      ...toHandoffView(row),
      entryCount: row.entry_count,
      chatUnread: row.chat_unread,
      codeUnread: row.code_unread,
      sourceFormat: row.source_format,
    }));
    return { items, total, page: input.page, perPage: input.perPage, pageCount: Math.max(1, Math.ceil(total / input.perPage)) };
  });
}

/** Every project tag in use, for the history filter. */
export async function findProjects(): Promise<string[]> {
  return read((tx) =>
    (tx.statement("SELECT DISTINCT project FROM handoffs WHERE project IS NOT NULL ORDER BY project").all() as { project: string }[]).map((row) => row.project),
  );
}
