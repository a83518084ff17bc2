/**
 * The HTTP floor for `npm run bench -- speed`: bare node:http + better-sqlite3 doing Baton's
 * append transaction (floor-store.ts) for `POST /api/handoffs/<id>/entries` with a JSON body
 * `{ type, content, asClient? }`, answering 201 `{ handoff, entry }`. Runs bundled, with plain Node.
 * Env: FLOOR_DATABASE, FLOOR_PORT. Prints "ready" once listening.
 */
import http from "node:http";
import { openFloorStore } from "./floor-store";

const store = openFloorStore(process.env.FLOOR_DATABASE ?? "");
const route = /^\/api\/handoffs\/([^/]+)\/entries$/;

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    const match = route.exec(request.url ?? "");
    let status = 201;
    let body: unknown;
    try {
      if (request.method !== "POST" || !match) throw Object.assign(new Error("not found"), { status: 404 });
      const input = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { type: string; content: string; asClient?: "chat" | "code" };
      body = store.append(decodeURIComponent(match[1]), input.asClient ?? "chat", input.type, input.content);
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
process.once("SIGTERM", () => server.close(() => process.exit(0)));
