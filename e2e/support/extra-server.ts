import { execFileSync, spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { expect, type Locator, type Page } from "@playwright/test";
import { scratchDir } from "./scratch";

/**
 * A second Baton server for tests that need another configuration (BATON_AUTH=required, a
 * non-loopback address): the same build as Playwright's server, its own port and data folder,
 * in its own process group so stopping it stops everything it started.
 */
const root = path.resolve(import.meta.dirname, "..", "..");
const distDir = `.next-e2e-${process.env.BATON_E2E_PORT || 3100}`;

export type ExtraServer = { dataDir: string; pid: number | undefined; stop: () => void; exited: Promise<{ code: number | null; stderr: string }> };

/** A fresh data folder, migrated, with the given tokens created through the CLI (name → token). */
export function prepareDataDir(tokens: { name: string; role: "operator" | "agent" }[] = []): { dataDir: string; tokens: Record<string, string> } {
  const dataDir = scratchDir("extra-");
  const env = { ...process.env, BATON_DATA_DIR: dataDir, DATABASE_URL: `file:${path.join(dataDir, "baton.db")}` };
  const created: Record<string, string> = {};
  for (const token of tokens) {
    created[token.name] = execFileSync(process.execPath, ["bin/baton.mjs", "token", "create", "--name", token.name, "--role", token.role], { cwd: root, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  }
  return { dataDir, tokens: created };
}

export function startExtraServer(options: {
  dataDir: string;
  port: number;
  host?: string;
  env?: Record<string, string>;
  netns?: string;
  /** The process's limit on open files (prlimit), for tests of what runs out first. */
  openFiles?: number;
}): ExtraServer {
  const env = {
    ...process.env,
    PORT: String(options.port),
    HOST: options.host ?? "127.0.0.1",
    BATON_DATA_DIR: options.dataDir,
    DATABASE_URL: options.env?.DATABASE_URL ?? `file:${path.join(options.dataDir, "baton.db")}`,
    BATON_DIST_DIR: distDir,
    BATON_SKIP_BUILD: "1",
    BATON_E2E_KEEP_DATA: "1",
    ...options.env,
  };
  const limited = options.openFiles ? ["prlimit", `--nofile=${options.openFiles}:${options.openFiles}`] : [];
  const command = [...limited, process.execPath, "scripts/e2e-server.mjs"];
  const [file, ...args] = options.netns ? ["ip", "netns", "exec", options.netns, ...command] : command;
  const child = spawn(file, args, { cwd: root, env, detached: true, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) => child.on("exit", (code) => resolve({ code, stderr })));
  return {
    dataDir: options.dataDir,
    pid: child.pid,
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

/**
 * Waits until React has hydrated `element` (its props are attached to the DOM node): before
 * that, a client form's submit does nothing and a controlled input is reset by hydration.
 */
export async function whenHydrated(element: Locator): Promise<Locator> {
  await expect.poll(() => element.evaluate((node) => Object.keys(node).some((key) => key.startsWith("__reactProps$")))).toBe(true);
  return element;
}

/** Signs in on the sign-in page `page` shows, with `token`, once the form is live. */
export async function signInWith(page: Page, token: string): Promise<void> {
  await page.getByLabel("Token").fill(token);
  await (await whenHydrated(page.getByRole("button", { name: "Sign in" }))).click();
}

/**
 * Stops an extra server and waits for it to exit; a server still running `graceMs` after
 * SIGTERM gets SIGKILL (its group), so no stale server keeps the port for the next run.
 * Resolves to how it ended.
 */
export async function stopAndWait(server: ExtraServer, graceMs = 10_000): Promise<"exited" | "killed"> {
  server.stop();
  const exited = await Promise.race([server.exited.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), graceMs))]);
  if (exited) return "exited";
  try {
    if (server.pid) process.kill(-server.pid, "SIGKILL");
  } catch {
    // Gone meanwhile.
  }
  return "killed";
}

/** Whether something accepts connections on host:port (from this machine's own namespace). */
function listening(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(2000);
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
    socket.once("timeout", () => done(false));
  });
}

/**
 * startExtraServer, then waits until the new server answers `probe`. Refuses a port something
 * already listens on (a stale server of an earlier run would answer the probe), and fails at
 * once if the server exits before answering.
 */
export async function startAndWait(options: Parameters<typeof startExtraServer>[0], probe: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<ExtraServer> {
  if (!options.netns && (await listening(options.host ?? "127.0.0.1", options.port))) {
    throw new Error(`port ${options.port} is taken before ${what} started (a server left over from an earlier run?)`);
  }
  const server = startExtraServer(options);
  const ended: { result?: { code: number | null; stderr: string } } = {};
  void server.exited.then((result) => (ended.result = result));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (ended.result) {
      const { code, stderr } = ended.result;
      throw new Error(`${what} exited (code ${code}) before answering: ${stderr.trim().split("\n").slice(-3).join(" / ")}`);
    }
    if (await probe().catch(() => false)) return server;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  server.stop();
  throw new Error(`timed out waiting for ${what}`);
}
