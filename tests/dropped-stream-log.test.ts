import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToken } from "../lib/auth";
import { write } from "../lib/database";

const projectRoot = path.resolve(import.meta.dirname, "..");

/**
 * A live-update stream whose client stopped reading is dropped (its connection and what was
 * queued on it go: tests/stream-caps.test.ts). That is an expected event, not a failure: Baton's
 * server (its own HTTP server, in a process of its own: tests/support/serve-mcp-http.ts) says it in
 * one line on stderr, without a stack trace (it logged the whole Error, stack and all, through
 * @hono/node-server for every such stream).
 */
describe("a dropped live-update stream in the server's log", () => {
  let server: ChildProcess;
  let origin: string;
  let stderr = "";
  beforeAll(async () => {
    server = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "support", "serve-mcp-http.ts")], {
      cwd: projectRoot,
      env: process.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    server.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    server.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    for (const deadline = Date.now() + 60_000; !/listening (\S+)/.test(stdout); ) {
      if (Date.now() > deadline || server.exitCode !== null) throw new Error(`the server did not start:\n${stdout}${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    origin = /listening (\S+)/.exec(stdout)![1];
  }, 90_000);
  afterAll(() => {
    if (server.exitCode === null) process.kill(-server.pid!, "SIGKILL");
  });

  it("is one line without a stack, and the connection is still dropped", async () => {
    const { token } = await createToken({ name: "not-reading", role: "operator" });
    const { hostname, port } = new URL(origin);
    // A client that asks for a stream and then reads nothing (no 'data' listener: Node stops reading at 16 KiB).
    const socket = net.connect(Number(port), hostname);
    socket.on("error", () => {});
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    socket.write(`GET /api/events HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      // More changes than the stream queues for a client that does not read, past the sockets' buffers.
      await write((tx) =>
        tx.run("INSERT INTO changes (subject, action) SELECT 'handoff', 'updated' FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60000) SELECT i FROM n) AS numbers"),
      );
      await expect.poll(() => stderr, { timeout: 30_000 }).toContain("dropped a live-update stream");
      // What the server sent before it dropped the connection, then its end: the stream did not go on.
      socket.resume();
      await closed;
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(stderr).not.toMatch(/^\s+at /m);
      expect(stderr.trim().split("\n").filter((line) => line.includes("dropped a live-update stream"))).toEqual([
        "baton: dropped a live-update stream whose client read none of its last 11000 events; it resumes from the last one it read",
      ]);
    } finally {
      socket.destroy();
    }
  }, 60_000);
});
