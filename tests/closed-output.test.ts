import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
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

function baton(args: string[]): { child: ChildProcessWithoutNullStreams; stderr: () => string; exited: Promise<number | null> } {
  const dataFolder = tempFolder();
  const env = { ...process.env, BATON_DATA_DIR: dataFolder, DATABASE_URL: `file:${path.join(dataFolder, "baton.db")}` };
  const child = spawn(process.execPath, [bin, ...args], { cwd: tempFolder(), env });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  return { child, stderr: () => stderr, exited };
}

describe("a reader that leaves", () => {
  it("baton --help into a pipe already closed exits 0 without a stack trace", async () => {
    const run = baton(["--help"]);
    run.child.stdout.destroy();
    expect(await run.exited).toBe(0);
    expect(run.stderr()).toBe("");
  });

  it("baton mcp whose client stopped reading ends at its next answer, 0 and without a stack trace", async () => {
    const run = baton(["mcp"]);
    const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "leaves", version: "1" } } };
    run.child.stdin.write(`${JSON.stringify(initialize)}\n`);
    await new Promise((resolve) => run.child.stdout.once("data", resolve));
    run.child.stdout.destroy();
    run.child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    run.child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })}\n`);
    expect(await run.exited).toBe(0);
    expect(run.stderr()).not.toMatch(/EPIPE|^\s+at /m);
  });
});
