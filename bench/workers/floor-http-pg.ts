/**
 * The PostgreSQL HTTP floor for `npm run bench -- speed` (part `postgres`): bare node:http + a
 * `pg` pool of the same size as Baton's, doing Baton's append transaction on Baton's own schema
 * (lock the thread's row, insert the entry, move the writer's cursor and updated_at, in one
 * statement, as Baton does) behind floor-server.ts. Env: FLOOR_DATABASE_URL, FLOOR_PORT, FLOOR_POOL_SIZE.
 */
import pg from "pg";
import { appendQuery } from "./floor-pg-append";
import { serveAppends } from "./floor-server";

const pool = new pg.Pool({ connectionString: process.env.FLOOR_DATABASE_URL, max: Number(process.env.FLOOR_POOL_SIZE) || 10 });

async function append(id: string, side: "chat" | "code", type: string, content: string) {
  const { rows } = await pool.query(appendQuery(id, side, type, content));
  if (!rows[0]) throw Object.assign(new Error(`handoff ${id} not found`), { status: 404 });
  if (rows[0].seq === null) throw Object.assign(new Error(`handoff ${id} is completed`), { status: 409 });
  return rows[0];
}

serveAppends(append, () => pool.end());
