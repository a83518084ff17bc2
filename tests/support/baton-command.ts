import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

/** The checkout's `baton` command, as a user runs it. */
export const BATON_BIN = path.resolve(import.meta.dirname, "..", "..", "bin", "baton.mjs");

export type CommandRun = { code: number | null; stdout: string; stderr: string };

/**
 * Runs `baton <args>` in `cwd` (default this process's) with this process's environment (its
 * data folder or database) and `env` over it, `input` on its standard input; resolves once it has exited.
 */
export function runBaton(args: string[], options: { cwd?: string; input?: string; env?: Record<string, string> } = {}): Promise<CommandRun> {
  const child = spawn(process.execPath, [BATON_BIN, ...args], { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ["pipe", "pipe", "pipe"] });
  const ran = runOf(child);
  child.stdin.end(options.input ?? "");
  return ran;
}

/** What a spawned command (its stdout and stderr piped) wrote, and its exit code, once it has exited. */
export function runOf(child: ChildProcess): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
