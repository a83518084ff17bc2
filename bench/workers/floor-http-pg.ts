/**
 * The PostgreSQL HTTP floor for `npm run bench -- speed` (part `postgres`): bare node:http + a
 * `pg` pool of the same size as Baton's, doing Baton's append transaction on Baton's own schema
 * (lock the thread's row, insert the entry, move the writer's cursor and updated_at) for
 * `POST /api/handoffs/<id>/entries` with `{ type, content, asClient? }`, answering 201
 * `{ handoff, entry }`. Env: FLOOR_DATABASE_URL, FLOOR_PORT, FLOOR_POOL_SIZE. Prints "ready".
 */
import http from "node:http";
import pg from "pg";

const pool = new pg.Pool({ connectionString: process.env.FLOOR_DATABASE_URL, max: Number(process.env.FLOOR_POOL_SIZE) || 10 });
const route = /^\/api\/handoffs\/([^/]+)\/entries$/;

async function append(id: string, side: "chat" | "code", type: string, content: string) {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const found = await client.query({ name: "lock", text: "SELECT status FROM handoffs WHERE id = $1 FOR UPDATE", values: [id] });
    if (!found.rows[0]) throw Object.assign(new Error(`handoff ${id} not found`), { status: 404 });
    if (found.rows[0].status !== "active") throw Object.assign(new Error(`handoff ${id} is completed`), { status: 409 });
    const at = new Date().toISOString();
    const entry = (
      await client.query({ name: "insert", text: "INSERT INTO handoff_entries (handoff_id, from_client, type, content, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING *", values: [id, side, type, content, at] })
    ).rows[0];
    const cursor = side === "chat" ? "chat_last_seen" : "code_last_seen";
    const handoff = (await client.query({ name: `move-${side}`, text: `UPDATE handoffs SET updated_at = $1, ${cursor} = $2 WHERE id = $3 RETURNING *`, values: [at, entry.seq, id] })).rows[0];
    await client.query("COMMIT");
    return { handoff, entry };
  } catch (error) {
    await client.query("ROLLBACK");
    throw error;
  } finally {
    client.release();
  }
}

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", async () => {
    const match = route.exec(request.url ?? "");
    let status = 201;
    let body: unknown;
    try {
      if (request.method !== "POST" || !match) throw Object.assign(new Error("not found"), { status: 404 });
      const input = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { type: string; content: string; asClient?: "chat" | "code" };
      body = await append(decodeURIComponent(match[1]), input.asClient ?? "chat", input.type, input.content);
    } catch (error) {
      status = (error as { status?: number }).status ?? 400;
      body = { error: { message: (error as Error).message } };
    }
    const text = JSON.stringify(body);
    response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    response.end(text);
  });
});
server.listen(Number(process.env.FLOOR_PORT), "127.0.0.1", () => process.stdout.write("ready\n"));
process.once("SIGTERM", () => server.close(() => void pool.end().then(() => process.exit(0))));
