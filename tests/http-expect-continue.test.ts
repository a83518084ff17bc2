import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BODY_LIMITS } from "../lib/guard";
import { serveApi, type ApiServer } from "./support/api-server";
import { countRows } from "./support/rows";

/**
 * `Expect: 100-continue` through Baton's own server on a real socket: a client that sends it
 * waits for the server's word before sending its body, so a refusal must come before any 100.
 */
let open: ApiServer;
let closed: ApiServer;
beforeAll(async () => {
  open = await serveApi();
  closed = await serveApi({ BATON_AUTH: "required" });
});
afterAll(async () => {
  await open?.close();
  await closed?.close();
});

type Exchange = { text: string; write: (bytes: string) => void; next: (pattern: RegExp) => Promise<string>; end: () => void };

/** One connection: `next` waits until what the server sent matches `pattern` (or 3 s pass) and returns all of it. */
function connect(origin: string): Promise<Exchange> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      const exchange: Exchange = {
        text: "",
        write: (bytes) => void socket.write(bytes),
        next: (pattern) =>
          new Promise((done) => {
            const check = () => {
              if (!pattern.test(exchange.text)) return;
              clearTimeout(timer);
              socket.off("data", check);
              done(exchange.text);
            };
            const timer = setTimeout(() => {
              socket.off("data", check);
              done(exchange.text);
            }, 3_000);
            socket.on("data", check);
            check();
          }),
        end: () => void socket.destroy(),
      };
      socket.on("data", (chunk: Buffer) => (exchange.text += chunk.toString("latin1")));
      resolve(exchange);
    });
    socket.on("error", reject);
  });
}

const head = (origin: string, path: string, length: number, extra = "") =>
  `POST ${path} HTTP/1.1\r\nhost: ${new URL(origin).host}\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\nexpect: 100-continue\r\n${extra}\r\n`;

describe("Expect: 100-continue", () => {
  it("answers a body over the cap with 413 before asking for it: no 100 Continue, nothing stored", async () => {
    const before = await countRows("handoffs");
    const connection = await connect(open.origin);
    connection.write(head(open.origin, "/api/handoffs", 100 * 1024 * 1024));
    const answer = await connection.next(/HTTP\/1\.1 (?!100)\d{3} /);
    connection.end();
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain(`the limit for /api/handoffs is ${BODY_LIMITS.default} bytes`);
    expect(await countRows("handoffs")).toBe(before);
  });

  it("answers a caller without credentials with 401 before asking for the body", async () => {
    const connection = await connect(closed.origin);
    connection.write(head(closed.origin, "/api/handoffs", 1024));
    const answer = await connection.next(/HTTP\/1\.1 (?!100)\d{3} /);
    connection.end();
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
  });

  it("asks an admitted request for its body with 100 Continue, then stores it", async () => {
    const before = await countRows("handoffs");
    const body = JSON.stringify({ title: "sent after 100 Continue", content: "waited for the server's word" });
    const connection = await connect(open.origin);
    connection.write(head(open.origin, "/api/handoffs", Buffer.byteLength(body)));
    expect(await connection.next(/^HTTP\/1\.1 100 Continue\r\n\r\n/)).toBe("HTTP/1.1 100 Continue\r\n\r\n");
    connection.write(body);
    const answer = await connection.next(/HTTP\/1\.1 201 [^]*\r\n\r\n[^]*\}/);
    connection.end();
    expect(answer).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
    expect(await countRows("handoffs")).toBe(before + 1);
  });
});
