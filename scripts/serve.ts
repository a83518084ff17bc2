/**
 * `npm start` (and `npm run dev` with --dev): migrates the database, builds when the build is
 * missing or older than the sources, then serves on HOST:PORT (default 127.0.0.1:3000).
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { dataDir } from "../lib/config";
import { ensureMigrated } from "../lib/migrate";

const root = path.resolve(import.meta.dirname, "..");
const nextBin = path.join(root, "node_modules", ".bin", "next");
const dev = process.argv.includes("--dev");
const host = process.env.HOST || "127.0.0.1";
const port = process.env.PORT || "3000";
const distDir = path.join(root, process.env.BATON_DIST_DIR || ".next");
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", CHECKPOINT_DISABLE: "1", BATON_LISTEN_HOST: host };

const SOURCES = ["app", "components", "lib", "public", "prisma/schema.prisma", "next.config.ts", "package.json", "postcss.config.mjs"];

function newestSourceTime(entry: string): number {
  if (!fs.existsSync(entry)) return 0;
  const stat = fs.statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  if (entry.endsWith(path.join("lib", "generated"))) return 0;
  return Math.max(0, ...fs.readdirSync(entry).map((name) => newestSourceTime(path.join(entry, name))));
}

function buildIsCurrent(): boolean {
  const buildId = path.join(distDir, "BUILD_ID");
  if (!fs.existsSync(buildId)) return false;
  const builtAt = fs.statSync(buildId).mtimeMs;
  return SOURCES.every((source) => newestSourceTime(path.join(root, source)) <= builtAt);
}

// Each Next process runs in its own process group and a stop signal goes to the whole group:
// `next start` leaves a next-server child, and `next build` workers, that would otherwise outlive us.
let current: ChildProcess | undefined;
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    if (current?.pid) process.kill(-current.pid, signal);
    else process.exit(1);
  });
}

function runNext(args: string[]): Promise<number> {
  return new Promise((resolve) => {
    current = spawn(nextBin, args, { cwd: root, env, stdio: "inherit", detached: true });
    current.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

try {
  ensureMigrated();
} catch (error) {
  console.error(`baton: could not migrate the database in ${dataDir()}: ${(error as Error).message}`);
  process.exit(1);
}
console.log(`baton: data in ${dataDir()}`);
if (!dev && !buildIsCurrent()) {
  console.log("baton: building the dashboard (once per change of the sources)…");
  const status = await runNext(["build"]);
  if (status !== 0) {
    console.error("baton: the build failed (see above); nothing was started");
    process.exit(status);
  }
}
process.exit(await runNext([dev ? "dev" : "start", "-H", host, "-p", port]));
