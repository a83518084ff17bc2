import { z } from "zod";
import { readTransaction } from "../db";
import type { Prisma } from "../generated/prisma/client";
import { MAX_PAGE, parseInput, wholeNumberParam, type DoorInput } from "../validation";
import { handoffStatusSchema, optionalProjectSchema } from "./schemas";
import { toHandoffView, type HandoffView } from "./views";

export const HISTORY_PAGE_SIZE = 50;
export const SOURCE_FILTERS = ["native", "bundle", "handoff_json", "handoff_yaml"] as const;
export type SourceFilter = (typeof SOURCE_FILTERS)[number];

const blankToUndefined = (value: unknown) => (value === "" || value === null ? undefined : value);

export const findHandoffsInput = z.object({
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

type CountRow = { id: string; entry_count: bigint; chat_unread: bigint; code_unread: bigint };

/**
 * History, most recent activity first. Counts come from index range scans on
 * (handoff_id, seq) for the visible page only, never from loading entries.
 */
export async function findHandoffs(options: FindHandoffsOptions = {}): Promise<HandoffPage> {
  const input = parseInput(findHandoffsInput, options);
  const where: Prisma.HandoffWhereInput = {
    ...(input.status && { status: input.status }),
    ...(input.project && { project: input.project }),
    ...(input.q && { title: { contains: input.q } }),
    ...(input.source === "native" && { source: { is: null } }),
    ...(input.source && input.source !== "native" && { source: { is: { format: input.source } } }),
  };
  return readTransaction(async (tx) => {
    const [total, rows] = await Promise.all([
      tx.handoff.count({ where }),
      tx.handoff.findMany({
        where,
        orderBy: [{ updatedAt: "desc" }, { id: "asc" }],
        skip: (input.page - 1) * input.perPage,
        take: input.perPage,
        include: { source: { select: { format: true } } },
      }),
    ]);
    const counts = new Map<string, CountRow>();
    if (rows.length > 0) {
      const placeholders = rows.map(() => "?").join(", ");
      const countRows = await tx.$queryRawUnsafe<CountRow[]>(
        `SELECT h.id AS id,
           (SELECT COUNT(*) FROM handoff_entries e WHERE e.handoff_id = h.id) AS entry_count,
           (SELECT COUNT(*) FROM handoff_entries e WHERE e.handoff_id = h.id AND e.seq > h.chat_last_seen) AS chat_unread,
           (SELECT COUNT(*) FROM handoff_entries e WHERE e.handoff_id = h.id AND e.seq > h.code_last_seen) AS code_unread
         FROM handoffs h WHERE h.id IN (${placeholders})`,
        ...rows.map((row) => row.id),
      );
      for (const row of countRows) counts.set(row.id, row);
    }
    const items = rows.map((row) => {
      const count = counts.get(row.id);
      return {
        ...toHandoffView(row),
        entryCount: Number(count?.entry_count ?? 0),
        chatUnread: Number(count?.chat_unread ?? 0),
        codeUnread: Number(count?.code_unread ?? 0),
        sourceFormat: row.source?.format ?? null,
      };
    });
    return {
      items,
      total,
      page: input.page,
      perPage: input.perPage,
      pageCount: Math.max(1, Math.ceil(total / input.perPage)),
    };
  });
}

/** Every project tag in use, for the history filter. */
export async function findProjects(): Promise<string[]> {
  return readTransaction(async (tx) => {
    const rows = await tx.handoff.findMany({
      where: { project: { not: null } },
      distinct: ["project"],
      select: { project: true },
      orderBy: { project: "asc" },
    });
    return rows.flatMap((row) => (row.project ? [row.project] : []));
  });
}
