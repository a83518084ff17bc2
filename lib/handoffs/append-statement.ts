/**
 * The append rule's words, shared by the engines and the bench's PostgreSQL floor: which columns
 * a handoff and an entry are read back with, and the rule as PostgreSQL's one statement. No
 * server-only mark: the bench's floors run it bundled under plain Node. Only store.ts writes
 * with it.
 */
import type { HandoffRow } from "./views";

export const HANDOFF_COLUMNS = "id, title, project, chat_last_seen, code_last_seen, status, created_at, updated_at, closed_at";
export const ENTRY_COLUMNS = "seq, handoff_id, from_client, type, content, created_at, number, answers";

/** The writer's cursor: a side has seen what it wrote. */
export const CURSOR_OF = { chat: "chat_last_seen", code: "code_last_seen" } as const;

/**
 * Lock and check the thread, insert the entry numbered one past the thread's last, move the
 * writer's cursor, the thread's activity and its last number. Parameters: handoff id,
 * from_client, type, content, created_at, git (JSON or null), answers (a number or null). One row
 * back, in AppendedRow's shape: none when there is no such thread; `seq` null when it is not active.
 */
const appendStatementOf = (cursor: string) => `
  WITH target AS (SELECT id, status, last_number FROM handoffs WHERE id = ? FOR UPDATE),
  added AS (
    INSERT INTO handoff_entries (handoff_id, from_client, type, content, created_at, git, answers, number)
    SELECT id, CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TIMESTAMP(3)), CAST(? AS TEXT), CAST(? AS INTEGER), last_number + 1
    FROM target WHERE status = 'active'
    RETURNING ${ENTRY_COLUMNS}),
  moved AS (
    UPDATE handoffs SET updated_at = added.created_at, ${cursor} = added.seq, last_number = added.number FROM added WHERE handoffs.id = added.handoff_id
    RETURNING ${HANDOFF_COLUMNS.split(", ").map((column) => `handoffs.${column}`).join(", ")})
  SELECT added.seq, added.from_client, added.type, added.content, added.created_at AS entry_created_at, added.number, added.answers,
    ${HANDOFF_COLUMNS.split(", ").map((column) => `moved.${column}`).join(", ")}
  FROM target LEFT JOIN added ON true LEFT JOIN moved ON true`;

/** Built once per writer side: the engine looks its prepared statement up by the text. */
export const APPEND_STATEMENTS = { chat: appendStatementOf(CURSOR_OF.chat), code: appendStatementOf(CURSOR_OF.code) };

/** An append's values, already as stored: `git` is the GitState's JSON. */
export type AppendValues = { fromClient: string; type: string; content: string; createdAt: string; git: string | null; answers: number | null };

/** The parameters of APPEND_STATEMENTS, in their order. */
export function appendParameters(id: string, values: AppendValues): (string | number | null)[] {
  return [id, values.fromClient, values.type, values.content, values.createdAt, values.git, values.answers];
}

/**
 * What an append answers on either engine, before it becomes views: the entry and its thread
 * after the cursor moved, or `seq` null when the thread is not active (PostgreSQL's row then
 * holds nulls; nothing else of it is read).
 */
export type AppendedRow =
  | (HandoffRow & { seq: number; from_client: string; type: string; content: string; entry_created_at: string; number: number; answers: number | null })
  | { seq: null };
