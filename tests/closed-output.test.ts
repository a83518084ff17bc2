import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
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
function baton(args: string[], stdout: "pipe" | number = "pipe"): { child: ChildProcess; stderr: () => string; exited: Promise<number | null> } {
  const dataFolder = tempFolder();
  const env = { ...process.env, BATON_DATA_DIR: dataFolder, DATABASE_URL: `file:${path.join(dataFolder, "baton.db")}` };
  const child = spawn(process.execPath, [bin, ...args], { cwd: tempFolder(), env, stdio: ["pipe", stdout, "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  return { child, stderr: () => stderr, exited };
}

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
    expect(run.stderr()).not.toMatch(/EPIPE|^\s+at /m);
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
