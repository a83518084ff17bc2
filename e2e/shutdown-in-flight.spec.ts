import net from "node:net";
import path from "node:path";
import Database from "better-sqlite3";
import { expect, test } from "@playwright/test";
import { prepareDataDir, startExtraServer, waitUntil, type ExtraServer } from "./support/extra-server";

/**
 * A stop signal lets the requests in flight finish: an MCP call arriving as the server is told
 * to stop (SIGTERM, as a service manager or a deploy sends) is answered, and what it wrote is
 * what its client was told. The server counted every request whose Accept names
 * text/event-stream as a stream that never ends, and MCP clients send that Accept with every
 * POST: such calls were cut off at once, their client left without an answer.
 */
const port = Number(process.env.BATON_E2E_PORT || 3100) + 98;
const host = `127.0.0.1:${port}`;

let server: ExtraServer;
let dataDir: string;

test.beforeAll(async () => {
  dataDir = prepareDataDir().dataDir;
  server = startExtraServer({ dataDir, port });
  await waitUntil(async () => (await fetch(`http://${host}/api/health`)).status === 200, "the server");
});
test.afterAll(() => server?.stop());

test("an MCP call in flight when SIGTERM comes is answered before the server exits", async () => {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "create_handoff", arguments: { title: "Sent across a stop", content: "answered" } } });
  const head = `POST /api/mcp HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n`;
  const half = Math.floor(body.length / 2);
  const answer = await new Promise<string>((resolve) => {
    let text = "";
    const socket = net.connect(port, "127.0.0.1", async () => {
      socket.write(head + body.slice(0, half));
      // The request is in flight, its body half read: now the stop signal, then the rest.
      await new Promise((done) => setTimeout(done, 300));
      server.stop();
      await new Promise((done) => setTimeout(done, 300));
      socket.write(body.slice(half));
    });
    socket.on("data", (chunk: Buffer) => (text += chunk.toString()));
    socket.on("error", () => undefined);
    socket.on("close", () => resolve(text));
  });
  expect(answer).toMatch(/^HTTP\/1\.1 200 /);
  expect(answer).toContain("Sent across a stop");
  expect((await server.exited).code).toBe(0);
  const database = new Database(path.join(dataDir, "baton.db"), { readonly: true });
  const stored = database.prepare("SELECT COUNT(*) AS count FROM handoffs WHERE title = ?").get("Sent across a stop") as { count: number };
  database.close();
  expect(stored.count).toBe(1);
});
