/**
 * The minimal HTTP floor for `npm run bench -- speed` (issue 29, point 4): bare node:http +
 * better-sqlite3 doing only what the seed's append does, on a minimal table of its own: check
 * the handoff exists and is active, insert the entry, move the writer's cursor, in one
 * BEGIN IMMEDIATE (WAL, synchronous = NORMAL, as Baton). No search index, change feed, entry
 * numbers, secret scan or schemas: what any append over HTTP costs at the least. Runs bundled,
 * with plain Node, behind floor-server.ts. Env: FLOOR_DATABASE (a file of its own),
 * FLOOR_HANDOFFS (the ids it starts with, comma-separated), FLOOR_PORT.
 */
import Database from "better-sqlite3";
import { serveAppends } from "./floor-server";

const db = new Database(process.env.FLOOR_DATABASE ?? "", { timeout: 10_000 });
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
db.exec(`
  CREATE TABLE IF NOT EXISTS handoffs (id TEXT PRIMARY KEY, status TEXT NOT NULL DEFAULT 'active', chat_last_seen INTEGER NOT NULL DEFAULT 0, code_last_seen INTEGER NOT NULL DEFAULT 0);
  CREATE TABLE IF NOT EXISTS entries (seq INTEGER PRIMARY KEY AUTOINCREMENT, handoff_id TEXT NOT NULL, from_client TEXT NOT NULL, type TEXT NOT NULL, content TEXT NOT NULL, created_at TEXT NOT NULL);`);
const seed = db.prepare("INSERT OR IGNORE INTO handoffs (id) VALUES (?)");
for (const id of (process.env.FLOOR_HANDOFFS ?? "").split(",").filter(Boolean)) seed.run(id);

const check = db.prepare("SELECT status FROM handoffs WHERE id = ?").pluck();
const insert = db.prepare("INSERT INTO entries (handoff_id, from_client, type, content, created_at) VALUES (?, ?, ?, ?, ?)");
const moveCursor = {
  chat: db.prepare("UPDATE handoffs SET chat_last_seen = ? WHERE id = ?"),
  code: db.prepare("UPDATE handoffs SET code_last_seen = ? WHERE id = ?"),
};

const append = db.transaction((id: string, side: "chat" | "code", type: string, content: string) => {
  const status = check.get(id);
  if (status === undefined) throw Object.assign(new Error(`handoff ${id} not found`), { status: 404 });
  if (status !== "active") throw Object.assign(new Error(`handoff ${id} is completed`), { status: 409 });
  const seq = Number(insert.run(id, side, type, content, new Date().toISOString()).lastInsertRowid);
  moveCursor[side].run(seq, id);
  return { entry: { seq, handoffId: id, fromClient: side, type, content } };
});

serveAppends((id, side, type, content) => append.immediate(id, side, type, content), () => {
  db.close();
});
