import "server-only";
import { customAlphabet } from "nanoid";
import { Conflict, NotFound } from "../errors";
import { cleanFields, cleanText, type Redaction } from "../secrets";
import { storedDate, type Sql } from "../sqlite";
import type { GitState } from "../git/types";
import { parseInput } from "../validation";
import { NANOID_ALPHABET, titleSchema, type ClientSide, type EntryType } from "./schemas";
import { toEntryView, toHandoffView, type EntryRow, type EntryView, type HandoffRow, type HandoffView } from "./views";

/**
 * The only SQL that writes `handoffs` and `handoff_entries`, and the rules that go with it:
 * ids, the writer's cursor, refusing a completed thread, wiping on close. Every function takes
 * the caller's transaction (`tx`, from lib/sqlite.ts's `write` or `read`) as its first argument,
 * so an import or a close with an archive composes them inside one transaction of its own.
 */
const HANDOFF_COLUMNS = "id, title, project, chat_last_seen, code_last_seen, status, created_at, updated_at, closed_at";
const ENTRY_COLUMNS = "seq, handoff_id, from_client, type, content, created_at";
const newHandoffSuffix = customAlphabet(NANOID_ALPHABET, 21);

/** `git`: where the writer's repository stood, when it could tell (stored as JSON; lib/git). */
export type DraftEntry = { fromClient: ClientSide; type: EntryType; content: string; git?: GitState | null };

export function handoffNotFound(id: string): NotFound {
  return new NotFound(`handoff ${id} not found; check the ID (it was pasted or typed wrong, or belongs to another Baton)`);
}

/** The handoff row, or a NotFound naming the ID. */
export function loadHandoff(tx: Sql, id: string): HandoffRow {
  const row = tx.statement(`SELECT ${HANDOFF_COLUMNS} FROM handoffs WHERE id = ?`).get(id) as HandoffRow | undefined;
  if (!row) throw handoffNotFound(id);
  return row;
}

export function handoffExists(tx: Sql, id: string): boolean {
  return tx.statement("SELECT 1 FROM handoffs WHERE id = ?").get(id) !== undefined;
}

function gitJson(state: GitState | null | undefined): string | null {
  return state ? JSON.stringify(state) : null;
}

function insertEntry(tx: Sql, handoffId: string, entry: DraftEntry, at: string): EntryView {
  const row = tx
    .statement(`INSERT INTO handoff_entries (handoff_id, from_client, type, content, created_at, git) VALUES (?, ?, ?, ?, ?, ?) RETURNING ${ENTRY_COLUMNS}`)
    .get(handoffId, entry.fromClient, entry.type, entry.content, at, gitJson(entry.git)) as EntryRow;
  return toEntryView(row);
}

/**
 * Starts a thread with its first entries. Each side that wrote has seen what it wrote: its
 * cursor moves to its last entry (seqs are global, so that is whatever the next seq happens to be).
 */
export function createHandoffIn(
  tx: Sql,
  draft: { title: string; project: string | null; entries: DraftEntry[]; at?: Date; git?: GitState | null },
): { handoff: HandoffView; entries: EntryView[]; redactions: Redaction[] } {
  // Secrets are redacted (or refused) here, the one place every entry passes before it is stored.
  const contentField = (index: number) => (draft.entries.length === 1 ? "content" : `entries[${index}].content`);
  const fields: Record<string, string> = { title: parseInput(titleSchema, draft.title) };
  draft.entries.forEach((entry, index) => (fields[contentField(index)] = entry.content));
  const { texts, redactions } = cleanFields(fields);
  // Checked again: a marker can be longer than the secret it replaced.
  const title = parseInput(titleSchema, texts.title);
  const at = storedDate(draft.at);
  const id = `hof_${newHandoffSuffix()}`;
  tx.statement("INSERT INTO handoffs (id, title, project, created_at, updated_at, git) VALUES (?, ?, ?, ?, ?, ?)").run(id, title, draft.project, at, at, gitJson(draft.git));
  const entries = draft.entries.map((entry, index) => insertEntry(tx, id, { ...entry, content: texts[contentField(index)] }, at));
  const lastBy = (side: ClientSide) => entries.findLast((entry) => entry.fromClient === side)?.seq ?? 0;
  const handoff = tx
    .statement(`UPDATE handoffs SET chat_last_seen = ?, code_last_seen = ? WHERE id = ? RETURNING ${HANDOFF_COLUMNS}`)
    .get(lastBy("chat"), lastBy("code"), id) as HandoffRow;
  return { handoff: toHandoffView(handoff), entries, redactions };
}

declare const cleaned: unique symbol;

/**
 * An entry whose content passed the secrets check (redacted, or refused per BATON_SECRETS). Only
 * `cleanEntry` makes one, and `appendEntryIn` takes nothing else: the check runs before the write
 * transaction, so a 64 KiB entry no longer holds the write lock for its scan (~2 ms).
 */
export type CleanEntry = DraftEntry & { readonly redactions: Redaction[]; readonly [cleaned]: true };

export function cleanEntry(entry: DraftEntry): CleanEntry {
  const { text: content, redactions } = cleanText("content", entry.content);
  return { ...entry, content, redactions } as CleanEntry;
}

export function completedConflict(id: string): Conflict {
  return new Conflict(`handoff ${id} is completed; entries can no longer be added (start a new handoff to go on)`);
}

/** Appends to an active thread; the writer has seen what it wrote, so its cursor moves to it. */
export function appendEntryIn(tx: Sql, id: string, entry: CleanEntry): { handoff: HandoffView; entry: EntryView; redactions: Redaction[] } {
  const existing = loadHandoff(tx, id);
  if (existing.status !== "active") throw completedConflict(id);
  const at = storedDate();
  const added = insertEntry(tx, id, entry, at);
  const cursor = entry.fromClient === "chat" ? "chat_last_seen" : "code_last_seen";
  const handoff = tx
    .statement(`UPDATE handoffs SET updated_at = ?, ${cursor} = ? WHERE id = ? RETURNING ${HANDOFF_COLUMNS}`)
    .get(at, added.seq, id) as HandoffRow;
  return { handoff: toHandoffView(handoff), entry: added, redactions: entry.redactions };
}

/** Moves one side's cursor to the thread's highest seq; a cursor never moves backward. */
export function markReadIn(tx: Sql, id: string, side: ClientSide): HandoffView {
  loadHandoff(tx, id);
  const cursor = side === "chat" ? "chat_last_seen" : "code_last_seen";
  const row = tx
    .statement(
      `UPDATE handoffs SET ${cursor} = MAX(${cursor}, (SELECT COALESCE(MAX(seq), 0) FROM handoff_entries WHERE handoff_id = @id))
       WHERE id = @id RETURNING ${HANDOFF_COLUMNS}`,
    )
    .get({ id }) as HandoffRow;
  return toHandoffView(row);
}

/** Wipes a thread's entries and marks it completed; the row stays. Closing again changes nothing. */
export function closeHandoffIn(tx: Sql, id: string): HandoffView {
  const existing = loadHandoff(tx, id);
  if (existing.status === "completed") return toHandoffView(existing);
  const at = storedDate();
  tx.statement("DELETE FROM handoff_entries WHERE handoff_id = ?").run(id);
  const row = tx
    .statement(`UPDATE handoffs SET status = 'completed', closed_at = ?, updated_at = ? WHERE id = ? RETURNING ${HANDOFF_COLUMNS}`)
    .get(at, at, id) as HandoffRow;
  return toHandoffView(row);
}

/**
 * The latest git state recorded on a thread (its newest entry that carries one, else the
 * handoff's own) and the handoff's, whose `files` an import named. Raw JSON: lib/git parses it.
 */
export function recordedGitOf(tx: Sql, id: string): { latest: string | null; handoff: string | null } {
  const handoff = (tx.statement("SELECT git FROM handoffs WHERE id = ?").get(id) as { git: string | null } | undefined)?.git ?? null;
  const entry = tx.statement("SELECT git FROM handoff_entries WHERE handoff_id = ? AND git IS NOT NULL ORDER BY seq DESC LIMIT 1").get(id) as
    | { git: string }
    | undefined;
  return { latest: entry?.git ?? handoff, handoff };
}

type SeqBounds = { gt?: number; lt?: number };

/** Up to `limit` entries of a thread within `bounds`, in `order`. */
export function entriesOf(tx: Sql, id: string, bounds: SeqBounds, order: "asc" | "desc", limit: number): EntryView[] {
  // Rows as arrays (a thread is read many entries at a time; see Sql.rawStatement), in ENTRY_COLUMNS' order.
  const rows = tx
    .rawStatement(`SELECT ${ENTRY_COLUMNS} FROM handoff_entries WHERE handoff_id = ? AND seq > ? AND seq < ? ORDER BY seq ${order === "asc" ? "ASC" : "DESC"} LIMIT ?`)
    .all(id, bounds.gt ?? 0, bounds.lt ?? Number.MAX_SAFE_INTEGER, limit) as [number, string, string, string, string, string][];
  return rows.map(([seq, handoffId, fromClient, type, content, createdAt]) =>
    toEntryView({ seq, handoff_id: handoffId, from_client: fromClient, type, content, created_at: createdAt }),
  );
}

/** How many entries a thread has, and how many of them are past `cursor`. */
export function entryCounts(tx: Sql, id: string, cursor: number): { count: number; newCount: number } {
  return tx
    .statement("SELECT COUNT(*) AS count, COALESCE(SUM(seq > ?), 0) AS newCount FROM handoff_entries WHERE handoff_id = ?")
    .get(cursor, id) as { count: number; newCount: number };
}

/** Count, first and last seq of a thread's entries within `bounds`. */
export function entryRange(tx: Sql, id: string, bounds: SeqBounds): { count: number; first: number | null; last: number | null } {
  return tx
    .statement("SELECT COUNT(*) AS count, MIN(seq) AS first, MAX(seq) AS last FROM handoff_entries WHERE handoff_id = ? AND seq > ? AND seq < ?")
    .get(id, bounds.gt ?? 0, bounds.lt ?? Number.MAX_SAFE_INTEGER) as { count: number; first: number | null; last: number | null };
}
