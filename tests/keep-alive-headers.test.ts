import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HEADERS_DEADLINE_MS } from "../lib/server/connection-bounds";
import { serveApi, type ApiServer } from "./support/api-server";

/**
 * Headers that trickle in, through Baton's own server on a real socket: a connection must
 * complete each request's headers within 10 s of being ready for it, its first request from the
 * connection's opening, a later one from the previous answer's end. Node bounds a later request's
 * headers only from their first byte (headersTimeout), after up to its 5 s keep-alive wait, and
 * answered their stall 400 'could not be parsed': a client that sent a request, idled 4 s and then
 * trickled the next one's headers held the connection about 15 s.
 */
let api: ApiServer;
beforeAll(async () => {
  api = await serveApi();
});
afterAll(() => api?.close());

type Trickled = { answers: string; closedAfterMs: number };

/**
 * On one connection: `first` whole (unless empty), then, `idleMs` after its answer (or the
 * connection's opening), `next` a byte every `everyMs`; resolves when the server closes the
 * connection, with everything it sent and how long after the first answer (or the opening) that was.
 */
function trickleHeaders(first: string, idleMs: number, next: string, everyMs: number): Promise<Trickled> {
  const { hostname, port } = new URL(api.origin);
  return new Promise((resolve, reject) => {
    let answers = "";
    let readyAt = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const socket = net.connect(Number(port), hostname, () => {
      readyAt = Date.now();
      const trickle = (at: number) => {
        if (at >= next.length || socket.destroyed) return;
        socket.write(next[at]);
        timer = setTimeout(() => trickle(at + 1), everyMs);
      };
      if (first === "") timer = setTimeout(() => trickle(0), idleMs);
      else socket.write(first);
      socket.on("data", (chunk: Buffer) => {
        const answered = answers === "";
        answers += chunk.toString();
        if (answered && first !== "") {
          readyAt = Date.now();
          timer = setTimeout(() => trickle(0), idleMs);
        }
      });
    });
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ answers, closedAfterMs: Date.now() - readyAt });
    });
    socket.on("error", (error: NodeJS.ErrnoException) => (error.code === "ECONNRESET" ? undefined : reject(error)));
  });
}

const request = (port: string) => `GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Padding: ${"a".repeat(100)}\r\n\r\n`;

describe("headers that trickle in", () => {
  it(
    "a later request on a kept-alive connection gets the first one's 10 s, from the previous answer: 408, closed",
    async () => {
      const port = new URL(api.origin).port;
      const [later, first] = await Promise.all([
        // Idle 4 s (under Node's 5 s keep-alive wait), then a byte every 250 ms: 30 s for the headers.
        trickleHeaders(request(port), 4_000, request(port), 250),
        trickleHeaders("", 1_000, request(port), 250),
      ]);

      expect(later.answers).toMatch(/^HTTP\/1\.1 200 [^]*HTTP\/1\.1 408 /);
      expect(later.answers).toMatch(/connection: close/i);
      expect(later.answers).toContain(`the request's headers did not arrive within ${HEADERS_DEADLINE_MS / 1000} s`);
      expect(later.closedAfterMs).toBeGreaterThanOrEqual(HEADERS_DEADLINE_MS - 100);
      expect(later.closedAfterMs).toBeLessThan(HEADERS_DEADLINE_MS + 1_000);

      // The first request, the same way.
      expect(first.answers).toMatch(/^HTTP\/1\.1 408 /);
      expect(first.closedAfterMs).toBeLessThan(HEADERS_DEADLINE_MS + 1_000);
    },
    30_000,
  );
});
