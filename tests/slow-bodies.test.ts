import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXAMPLE_DOCUMENTS } from "../lib/formats/examples";
import { BODY_HEAD_START_MS, MIN_BODY_BYTES_PER_SECOND } from "../lib/server/connection-bounds";
import { serveApi, type ApiServer } from "./support/api-server";
import { countRows } from "./support/rows";

/**
 * A body that trickles in, through Baton's own server on a real socket. Node bounds a request only
 * by its 300 s requestTimeout, the same for every route, so a peer sending a byte a second to
 * sign-in, OAuth's endpoints or any write held the connection and its handler for five minutes.
 * Each route's body now has a deadline by its class: a small body is whole within the head start,
 * a large one keeps a minimum rate after it; a body too slow is answered 408 and nothing is done.
 * A slow upload that keeps the pace still goes through.
 */
let api: ApiServer;
beforeAll(async () => {
  api = await serveApi();
});
afterAll(() => api?.close());

type Sent = { status: number | null; answer: string; seconds: number; sentBytes: number };

/**
 * Sends a request's headers at once and its body `chunkBytes` every `everyMs`; resolves when the
 * server answers and closes, or the whole body went out and the answer came.
 */
function trickle(path: string, body: string, chunkBytes: number, everyMs: number): Promise<Sent> {
  const { hostname, port } = new URL(api.origin);
  const bytes = Buffer.from(body);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    let answer = "";
    let sentBytes = 0;
    let timer: NodeJS.Timeout | undefined;
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${bytes.length}\r\n\r\n`);
      const next = () => {
        if (socket.destroyed || socket.writableEnded || sentBytes >= bytes.length) return;
        socket.write(bytes.subarray(sentBytes, sentBytes + chunkBytes));
        sentBytes += chunkBytes;
        timer = setTimeout(next, everyMs);
      };
      next();
    });
    const done = () => {
      clearTimeout(timer);
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1];
      resolve({ status: status ? Number(status) : null, answer, seconds: (Date.now() - started) / 1000, sentBytes: Math.min(sentBytes, bytes.length) });
    };
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString();
      // A whole answer with its body (every answer here has a Content-Length).
      const length = /content-length: (\d+)/i.exec(answer)?.[1];
      const head = answer.indexOf("\r\n\r\n");
      if (length && head !== -1 && Buffer.byteLength(answer) - head - 4 >= Number(length)) {
        socket.destroy();
        done();
      }
    });
    socket.on("close", done);
    socket.on("error", (error: NodeJS.ErrnoException) => (error.code === "ECONNRESET" || error.code === "EPIPE" ? done() : reject(error)));
  });
}

/** A JSON body of about `size` bytes: `fields` padded with whitespace JSON allows. */
const padded = (fields: Record<string, unknown>, size: number) => {
  const json = JSON.stringify(fields);
  return `${json.slice(0, -1)}${" ".repeat(Math.max(0, size - json.length))}}`;
};

describe("bodies that come too slowly", () => {
  it(
    "answers a trickled small body 408 within its deadline and stores nothing; a large one that falls under the minimum rate too; slow but steady uploads go through",
    async () => {
      const handoffsBefore = await countRows("handoffs");
      const [thread, signIn, largeTrickle, steadySmall, steadyLarge] = await Promise.all([
        // A byte every 250 ms: 400 bytes would take 100 s.
        trickle("/api/handoffs", padded({ title: "Trickled", content: "never stored" }, 400), 1, 250),
        trickle("/api/session", JSON.stringify({ token: "batonop_trickled-token-that-never-ends-xxxxxxxxxxxxxxxx" }), 1, 250),
        // An import (a large class) at 2 KiB/s, under the minimum rate: 512 KiB would take 256 s.
        trickle("/api/import", padded({ text: EXAMPLE_DOCUMENTS.handoff_yaml.text, dryRun: true }, 512 * 1024), 2048, 1000),
        // 24 KiB over 6 s (4 KiB/s): slower than any real client, whole within the head start.
        trickle("/api/handoffs", padded({ title: "Slow but whole", content: "stored" }, 24 * 1024), 4096, 1000),
        // 640 KiB at 40 KiB/s: 16 s, past the head start, above the minimum rate.
        trickle("/api/import", padded({ text: EXAMPLE_DOCUMENTS.handoff_yaml.text, dryRun: true }, 640 * 1024), 20 * 1024, 500),
      ]);

      const headStart = BODY_HEAD_START_MS / 1000;
      for (const [name, refused] of Object.entries({ thread, signIn, largeTrickle })) {
        expect(refused.status, `${name}: ${refused.answer}`).toBe(408);
        expect(refused.answer).toContain("the request body came too slowly");
        expect(refused.answer).toMatch(/connection: close/i);
        expect(refused.seconds, name).toBeGreaterThanOrEqual(headStart);
      }
      expect(thread.answer).toContain("must arrive whole within 10 s");
      // A small body's deadline is the head start (checked each second).
      expect(thread.seconds).toBeLessThan(headStart + 2.5);
      expect(signIn.seconds).toBeLessThan(headStart + 2.5);
      // 2 KiB/s falls behind the minimum rate in the first second after the head start.
      expect(largeTrickle.answer).toContain(`at least ${MIN_BODY_BYTES_PER_SECOND / 1024} KiB/s`);
      expect(largeTrickle.seconds).toBeLessThan(headStart + 3.5);

      expect(steadySmall.status, steadySmall.answer).toBe(201);
      expect(steadyLarge.status, steadyLarge.answer).toBe(200);
      expect(steadyLarge.seconds).toBeGreaterThan(headStart);
      // The trickled thread was never created; the steady one was.
      expect(await countRows("handoffs")).toBe(handoffsBefore + 1);
      expect(await countRows("sessions")).toBe(0);
    },
    40_000,
  );
});
