import "server-only";
import { z } from "zod";
import { readTransaction } from "../db";
import { parseInput, wholeNumberParam } from "../validation";
import type { ShiftHandoffReason } from "./schemas";
import { shortIdOf } from "./views";

export const listShiftDocumentsInput = z.object({
  /** Records with an id above this one (keyset paging: stable while new handoffs arrive). */
  afterId: wholeNumberParam("afterId", 0, Number.MAX_SAFE_INTEGER).transform((value) => value ?? 0),
  limit: wholeNumberParam("limit", 1, 200).transform((value) => value ?? 50),
});

export type ListShiftDocumentsOptions = { afterId?: number; limit?: number };

export type ShiftDocumentSummary = {
  recordId: number;
  agentId: number;
  shortId: string;
  personaSlug: string;
  name: string;
  reason: ShiftHandoffReason;
  filePath: string;
  createdAt: string;
};

/** Handoff records that have a document, oldest first; `nextAfterId` is set when more follow. */
export async function listShiftDocuments(options: ListShiftDocumentsOptions = {}): Promise<{ items: ShiftDocumentSummary[]; nextAfterId: number | null }> {
  const input = parseInput(listShiftDocumentsInput, options);
  const rows = await readTransaction((tx) =>
    tx.handoffRecord.findMany({
      where: { id: { gt: input.afterId }, filePath: { not: null } },
      orderBy: { id: "asc" },
      take: input.limit + 1,
      include: { agent: { select: { sessionId: true, personaSlug: true, name: true } } },
    }),
  );
  const items = rows.slice(0, input.limit).map((row) => ({
    recordId: row.id,
    agentId: row.agentId,
    shortId: shortIdOf(row.agent.sessionId),
    personaSlug: row.agent.personaSlug,
    name: row.agent.name,
    reason: row.reason as ShiftHandoffReason,
    filePath: row.filePath as string,
    createdAt: row.createdAt.toISOString(),
  }));
  return { items, nextAfterId: rows.length > input.limit ? items[items.length - 1].recordId : null };
}
