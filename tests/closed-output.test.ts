import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { temporaryFolders } from "./support/temp-folders";

/**
 * A reader that goes away before Baton has written everything (`baton … | head`, an MCP client
 * that exited): run as users run it, `node bin/baton.mjs …`, whose standard output is a pipe the
 * test closes. Baton stops quietly, as a shell's own commands do, instead of dying with Node's
 * EPIPE stack trace.
 */
const bin = path.resolve(import.meta.dirname, "..", "bin", "baton.mjs");
const tempFolder = temporaryFolders("baton-closed-output-");

/** `baton <args>` with its standard output a pipe, or the file descriptor given. */
function baton(args: string[], stdout: "pipe" | number = "pipe") {
  const dataFolder = tempFolder();
  const env = { ...process.env, BATON_DATA_DIR: dataFolder, DATABASE_URL: `file:${path.join(dataFolder, "baton.db")}` };
  const child: ChildProcess = spawn(process.execPath, [bin, ...args], { cwd: tempFolder(), env, stdio: ["pipe", stdout, "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  return { child, stderr: () => stderr, exited, database: path.join(dataFolder, "baton.db") };
}

type Message = { id?: number; result?: { structuredContent?: { handoff?: { id: string } }; isError?: boolean }; error?: unknown };

/**
 * `baton mcp` spoken to in raw lines, as a client spawns it: every line it sends, and each
 * request's answer when it comes.
 */
async function mcpServer() {
  const run = baton(["mcp"]);
  let received = "";
  run.child.stdout!.on("data", (chunk: Buffer) => (received += chunk.toString()));
  const lines = () => received.split("\n").slice(0, -1);
  const messages = () => lines().map((line) => JSON.parse(line) as Message);
  let id = 0;
  const send = (method: string, params: Record<string, unknown> = {}) => {
    id += 1;
    run.child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    return id;
  };
  const answer = async (id: number) => {
    await expect.poll(() => messages().some((message) => message.id === id), { timeout: 60_000 }).toBe(true);
    return messages().find((message) => message.id === id)!;
  };
  await answer(send("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "leaves", version: "1" } }));
  run.child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  const append = (handoff: string, content: string) => send("tools/call", { name: "add_to_handoff", arguments: { id: handoff, type: "progress", content } });
  const created = await answer(send("tools/call", { name: "create_handoff", arguments: { title: "Left midway", content: "x".repeat(60_000) } }));
  const handoff = created.result!.structuredContent!.handoff!.id;
  // Acknowledged before the client leaves: each must be stored whatever follows.
  for (let index = 0; index < 10; index += 1) expect((await answer(append(handoff, `acknowledged ${index} ${"y".repeat(60_000)}`))).result?.isError).toBeFalsy();
  return { ...run, lines, messages, send, answer, append, handoff };
}

/** The entries of the server's database whose content starts with `prefix`. */
function storedEntries(database: string, prefix: string): number {
  const db = new Database(database, { readonly: true });
  try {
    return (db.prepare("SELECT count(*) AS count FROM handoff_entries WHERE content LIKE ?").get(`${prefix}%`) as { count: number }).count;
  } finally {
    db.close();
  }
}

/** Stops the server (SIGSTOP) while `meanwhile` runs, then lets it go on: what was sent meanwhile waits in the pipe, and is read at once. */
async function whileStopped(child: ChildProcess, meanwhile: () => Promise<void>): Promise<void> {
  child.kill("SIGSTOP");
  try {
    await meanwhile();
  } finally {
    child.kill("SIGCONT");
  }
}

/** Resolves once what was written to the server's stdin has left this process. */
const flushed = (child: ChildProcess) => new Promise<void>((resolve) => child.stdin!.write("", () => resolve()));

describe("a reader that leaves", () => {
  it("baton --help into a pipe already closed exits 0 without a stack trace", async () => {
    const run = baton(["--help"]);
    run.child.stdout!.destroy();
    expect(await run.exited).toBe(0);
    expect(run.stderr()).toBe("");
  });

  it("baton mcp whose client stopped reading ends at its next answer, 0 and without a stack trace", async () => {
    const run = baton(["mcp"]);
    const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "leaves", version: "1" } } };
    run.child.stdin!.write(`${JSON.stringify(initialize)}\n`);
    await new Promise((resolve) => run.child.stdout!.once("data", resolve));
    run.child.stdout!.destroy();
    run.child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    run.child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })}\n`);
    expect(await run.exited).toBe(0);
    expect(run.stderr()).not.toMatch(/^\s+at /m);
  });

  it("baton mcp whose client closes its end of stdout with appends in flight finishes every one it read, and exits 0 with one line", { timeout: 120_000 }, async () => {
    const server = await mcpServer();
    await whileStopped(server.child, async () => {
      // One chunk of requests (under a pipe's 64 KiB), all read at once when the server goes on.
      for (let index = 0; index < 20; index += 1) server.append(server.handoff, `in flight ${index} ${"z".repeat(1_000)}`);
      server.send("tools/call", { name: "get_handoff", arguments: { id: server.handoff } });
      await flushed(server.child);
      // The client leaves: its first answer meets the closed pipe (EPIPE) while the others run.
      server.child.stdout!.destroy();
    });
    expect(await server.exited).toBe(0);
    expect(storedEntries(server.database, "acknowledged ")).toBe(10);
    // It used to exit at the first failed answer, with the calls after it cut off (1 of 20 stored), and say nothing.
    expect(storedEntries(server.database, "in flight ")).toBe(20);
    const [, ...lines] = server.stderr().split("\n");
    expect(lines).toEqual([expect.stringMatching(/^baton mcp: the client closed its end of stdout \(EPIPE\): no answer can reach it, no new call starts; finishing the \d+ calls in flight, then stopping$/), ""]);
  });

  it.each([
    ["SIGHUP", "the client's terminal or session ended"],
    ["SIGTERM", "asked to stop"],
    ["SIGINT", "interrupted"],
  ] as const)("baton mcp sent %s with calls in flight answers each one it read in whole lines, stores it, and exits 0 with one line", { timeout: 120_000 }, async (signal, reason) => {
    const server = await mcpServer();
    const sent: number[] = [];
    await whileStopped(server.child, async () => {
      for (let index = 0; index < 10; index += 1) {
        sent.push(server.append(server.handoff, `in flight ${index} ${"z".repeat(1_000)}`));
        // A read of the whole thread between them: long answers.
        sent.push(server.send("tools/call", { name: "get_handoff", arguments: { id: server.handoff } }));
      }
      await flushed(server.child);
      // Delivered when the server goes on, after the requests waiting in its stdin.
      server.child.kill(signal);
    });
    expect(await server.exited).toBe(0);
    expect(server.child.signalCode).toBeNull();
    const [, ...lines] = server.stderr().split("\n");
    expect(lines).toEqual([expect.stringMatching(new RegExp(`^baton mcp: ${signal}: ${reason}; no new call starts; (stopping|finishing .* in flight, then stopping)$`)), ""]);
    // Every line whole (messages() parses each), each answer a success, and each append answered is stored: none cut off midway.
    const answered = server.messages().filter((message) => sent.includes(message.id!));
    for (const message of answered) expect(message.result && !message.result.isError, JSON.stringify(message).slice(0, 200)).toBe(true);
    const appendsAnswered = answered.filter((message) => sent.indexOf(message.id!) % 2 === 0).length;
    expect(storedEntries(server.database, "in flight ")).toBe(appendsAnswered);
    expect(storedEntries(server.database, "acknowledged ")).toBe(10);
  });

  it("baton mcp whose stdin ends with nothing in flight exits 0 with one line", { timeout: 60_000 }, async () => {
    const server = await mcpServer();
    server.child.stdin!.end();
    expect(await server.exited).toBe(0);
    expect(server.stderr().split("\n").slice(1)).toEqual(["baton mcp: stdin ended: the client is done; stopping", ""]);
  });

  it.skipIf(!fs.existsSync("/dev/full"))("standard output on a full disk (baton --help > /dev/full) is one line and exit 1", async () => {
    const full = fs.openSync("/dev/full", "w");
    try {
      const run = baton(["--help"], full);
      expect(await run.exited).toBe(1);
      expect(run.stderr()).toBe("baton: cannot write to standard output: ENOSPC: no space left on device, write\n");
    } finally {
      fs.closeSync(full);
    }
  });
});
