import "server-only";
import { z } from "zod";
import { MAX_INT4, read } from "../database";
import { parseInput, wholeNumberParam } from "../validation";
import type { ShiftHandoffReason } from "./schemas";
import { isoOf } from "../iso-date";
import { shortIdOf } from "./views";

type ListedRow = {
  id: number;
  agent_id: number;
  reason: string;
  file_path: string;
  created_at: string;
  session_id: string;
  persona_slug: string;
  name: string;
};

/** Record ids are 32-bit integers on PostgreSQL. */
const MAX_RECORD_ID = MAX_INT4;

export const listShiftDocumentsInput = z.object({
  /** Records with an id above this one (keyset paging: stable while new handoffs arrive). */
  afterId: wholeNumberParam("afterId", 0, MAX_RECORD_ID).transform((value) => value ?? 0),
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
  const rows = await read((tx) =>
    tx.all<ListedRow>(
      `SELECT r.id, r.agent_id, r.reason, r.file_path, r.created_at, a.session_id, a.persona_slug, a.name
       FROM handoff_records r JOIN agents a ON a.id = r.agent_id
       WHERE r.id > ? AND r.file_path IS NOT NULL ORDER BY r.id LIMIT ?`,
      [input.afterId, input.limit + 1],
    ),
  );
  const items = rows.slice(0, input.limit).map((row) => ({
    recordId: row.id,
    agentId: row.agent_id,
    shortId: shortIdOf(row.session_id),
    personaSlug: row.persona_slug,
    name: row.name,
    reason: row.reason as ShiftHandoffReason,
    filePath: row.file_path,
    createdAt: isoOf(row.created_at),
  }));
  return { items, nextAfterId: rows.length > input.limit ? items[items.length - 1].recordId : null };
}
