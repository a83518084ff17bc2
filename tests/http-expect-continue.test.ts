import { spawn } from "node:child_process";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToken } from "../lib/auth";
import { databaseFile, databaseUrl } from "../lib/config";
import { engineOf } from "../lib/database/engine";
import { BODY_LIMITS } from "../lib/guard";
import { BODY_HEAD_START_MS } from "../lib/server/connection-bounds";
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

type Exchange = { text: string; write: (bytes: string) => void; next: (pattern: RegExp, timeoutMs?: number) => Promise<string>; end: () => void };

/** One connection: `next` waits until what the server sent matches `pattern` (or `timeoutMs`, 3 s, pass) and returns all of it. */
function connect(origin: string): Promise<Exchange> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      const exchange: Exchange = {
        text: "",
        write: (bytes) => void socket.write(bytes),
        next: (pattern, timeoutMs = 3_000) =>
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
            }, timeoutMs);
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

  /**
   * The guard decides before asking for the body, and a bearer token's first use writes (its
   * last use): with another process holding SQLite's write lock, the guard waits for it, and the
   * event loop with it. The body's 10 s counted from the headers, so a client whose body takes a
   * few seconds after 100 Continue, as a small one may, was cut with 408 for Baton's own delay.
   */
  it.skipIf(engineOf(databaseUrl()) !== "sqlite")(
    "a body asked for late (the guard waited for a busy database) has its whole time from 100 Continue",
    async () => {
      const { token } = await createToken({ name: "continue-late", role: "agent" });
      const lockedMs = BODY_HEAD_START_MS - 2_000;
      // Another process holds the write lock, then lets it go by itself: this process waits, blocked.
      const holder = spawn(
        process.execPath,
        ["-e", `const db = new (require("better-sqlite3"))(process.argv[1]); db.exec("BEGIN IMMEDIATE"); process.stdout.write("held\\n"); setTimeout(() => { db.exec("ROLLBACK"); db.close(); }, ${lockedMs});`, databaseFile()],
        { stdio: ["ignore", "pipe", "inherit"] },
      );
      await new Promise((resolve) => holder.stdout.once("data", resolve));
      const before = await countRows("handoffs");
      const body = JSON.stringify({ title: "asked for late", content: "x".repeat(24 * 1024) });
      const connection = await connect(closed.origin);
      const sentAt = Date.now();
      connection.write(head(closed.origin, "/api/handoffs", Buffer.byteLength(body), `authorization: Bearer ${token}\r\n`));
      expect(await connection.next(/^HTTP\/1\.1 100 Continue\r\n\r\n/, 20_000)).toBe("HTTP/1.1 100 Continue\r\n\r\n");
      expect(Date.now() - sentAt).toBeGreaterThanOrEqual(lockedMs - 500);
      // 24 KiB in 6 parts over 4 s: a slow link, well within the 10 s a small body has.
      for (let at = 0; at < body.length; at += 4096) {
        connection.write(body.slice(at, at + 4096));
        await new Promise((resolve) => setTimeout(resolve, 800));
      }
      const answer = await connection.next(/HTTP\/1\.1 (?!100)\d{3} [^]*\r\n\r\n[^]*\}/, 5_000);
      connection.end();
      expect(answer).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
      expect(await countRows("handoffs")).toBe(before + 1);
    },
    40_000,
  );
});
