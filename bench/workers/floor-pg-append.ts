/**
 * The append as Baton's PostgreSQL engine runs it (lib/handoffs/store.ts, appendEntry): one
 * statement that locks and checks the thread, inserts the entry and moves the writer's cursor,
 * its own transaction.
 */
export const appendStatement = (cursor: string) => `
  WITH target AS (SELECT id, status FROM handoffs WHERE id = $1 FOR UPDATE),
  added AS (
    INSERT INTO handoff_entries (handoff_id, from_client, type, content, created_at)
    SELECT id, $2::text, $3::text, $4::text, $5::timestamp(3) FROM target WHERE status = 'active' RETURNING *),
  moved AS (UPDATE handoffs SET updated_at = added.created_at, ${cursor} = added.seq FROM added WHERE handoffs.id = added.handoff_id RETURNING handoffs.*)
  SELECT row_to_json(added) AS entry, row_to_json(moved) AS handoff FROM target LEFT JOIN added ON true LEFT JOIN moved ON true`;
