import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * A second Baton server for tests that need another configuration (BATON_AUTH=required, a
 * non-loopback address): the same build as Playwright's server, its own port and data folder,
 * in its own process group so stopping it stops everything it started.
 */
const root = path.resolve(import.meta.dirname, "..", "..");
const distDir = `.next-e2e-${process.env.BATON_E2E_PORT || 3100}`;

export type ExtraServer = { dataDir: string; stop: () => void; exited: Promise<{ code: number | null; stderr: string }> };

/** A fresh data folder, migrated, with the given tokens created through the CLI (name → token). */
export function prepareDataDir(tokens: { name: string; role: "operator" | "agent" }[] = []): { dataDir: string; tokens: Record<string, string> } {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-e2e-extra-"));
  const env = { ...process.env, BATON_DATA_DIR: dataDir, DATABASE_URL: `file:${path.join(dataDir, "baton.db")}` };
  const created: Record<string, string> = {};
  for (const token of tokens) {
    created[token.name] = execFileSync(process.execPath, ["bin/baton.mjs", "token", "create", "--name", token.name, "--role", token.role], { cwd: root, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  }
  return { dataDir, tokens: created };
}

export function startExtraServer(options: { dataDir: string; port: number; host?: string; env?: Record<string, string>; netns?: string }): ExtraServer {
  const env = {
    ...process.env,
    ...options.env,
    PORT: String(options.port),
    HOST: options.host ?? "127.0.0.1",
    BATON_DATA_DIR: options.dataDir,
    DATABASE_URL: `file:${path.join(options.dataDir, "baton.db")}`,
    BATON_DIST_DIR: distDir,
    BATON_SKIP_BUILD: "1",
    BATON_E2E_KEEP_DATA: "1",
  };
  const command = [process.execPath, "scripts/e2e-server.mjs"];
  const [file, ...args] = options.netns ? ["ip", "netns", "exec", options.netns, ...command] : command;
  const child = spawn(file, args, { cwd: root, env, detached: true, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) => child.on("exit", (code) => resolve({ code, stderr })));
  return {
    dataDir: options.dataDir,
    exited,
    stop: () => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGTERM");
      } catch {
        // Already gone.
      }
    },
  };
}

/** Polls `probe` until it answers, for a server that takes a few seconds to start. */
export async function waitUntil(probe: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}
