/**
 * The HTTP side both HTTP floors share: bare node:http answering `POST /api/handoffs/<id>/entries`
 * with a JSON body `{ type, content, asClient? }` by `append`, 201 `{ handoff, entry }`, or the
 * error's `status` (default 400). Listens on FLOOR_PORT and prints "ready"; SIGTERM stops it.
 */
import http from "node:http";

type Append = (id: string, side: "chat" | "code", type: string, content: string) => unknown;

export function serveAppends(append: Append, onStop: () => Promise<void> | void = () => undefined): void {
  const route = /^\/api\/handoffs\/([^/]+)\/entries$/;
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
  process.once("SIGTERM", () => server.close(() => void Promise.resolve(onStop()).then(() => process.exit(0))));
}
