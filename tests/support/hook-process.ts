import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const projectRoot = path.resolve(import.meta.dirname, "..", "..");

export type HookRun = { code: number | null; stdout: string; stderr: string };

/**
 * One hook process, as Claude Code starts it (`node bin/baton.mjs hook <event>`): the event's JSON
 * on stdin, Baton's data folder in the environment, a working folder of its own (Claude Code's
 * `cwd` is in the input, not the process's).
 */
export function runHookProcess(event: "session-start" | "stop", input: string | object, env: Record<string, string> = {}): Promise<HookRun> {
  return new Promise((resolve, reject) => {
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "baton-hook-cwd-"));
    const child = spawn(process.execPath, [path.join(projectRoot, "bin", "baton.mjs"), "hook", event], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      fs.rmSync(cwd, { recursive: true, force: true });
      resolve({ code, stdout, stderr });
    });
    // A hook that stops reading an oversized input closes its end early: the rest has nowhere to go.
    child.stdin.on("error", () => undefined);
    child.stdin.end(typeof input === "string" ? input : JSON.stringify(input));
  });
}
