import Database from "better-sqlite3";

/**
 * The floor's data layer: raw better-sqlite3 on Baton's own schema, doing the transactions
 * Baton's hot paths do (append = check the thread, insert the entry, move the writer's cursor and
 * updated_at, in one BEGIN IMMEDIATE; read = the handoff and its entries in one snapshot) with
 * none of Baton's rules beyond that. Shared by the stdio and HTTP floors.
 */
type Row = Record<string, unknown>;

export function openFloorStore(file: string) {
  const db = new Database(file, { timeout: 10_000 });
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  const handoff = db.prepare("SELECT * FROM handoffs WHERE id = ?");
  const insert = db.prepare("INSERT INTO handoff_entries (handoff_id, from_client, type, content, created_at) VALUES (?, ?, ?, ?, ?) RETURNING *");
  const moveCursor = {
    chat: db.prepare("UPDATE handoffs SET updated_at = ?, chat_last_seen = ? WHERE id = ? RETURNING *"),
    code: db.prepare("UPDATE handoffs SET updated_at = ?, code_last_seen = ? WHERE id = ? RETURNING *"),
  };
  const entries = db.prepare("SELECT * FROM handoff_entries WHERE handoff_id = ? ORDER BY seq");
  const now = () => new Date().toISOString().replace("Z", "+00:00");

  const append = db.transaction((id: string, side: "chat" | "code", type: string, content: string) => {
    const found = handoff.get(id) as Row | undefined;
    if (!found) throw new Error(`handoff ${id} not found`);
    if (found.status !== "active") throw new Error(`handoff ${id} is completed`);
    const at = now();
    const entry = insert.get(id, side, type, content, at) as Row;
    return { handoff: moveCursor[side].get(at, entry.seq, id) as Row, entry };
  });
  const read = db.transaction((id: string) => {
    const found = handoff.get(id) as Row | undefined;
    if (!found) throw new Error(`handoff ${id} not found`);
    return { handoff: found, entries: entries.all(id) as Row[] };
  });
  return {
    append: (id: string, side: "chat" | "code", type: string, content: string) => append.immediate(id, side, type, content),
    read: (id: string) => read.deferred(id),
    close: () => db.close(),
  };
}
