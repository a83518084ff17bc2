/**
 * `npm start` (and `npm run dev` with --dev): migrates the database, builds when the build is
 * missing or older than the sources, then serves on HOST:PORT (default 127.0.0.1:3000) through
 * Baton's own HTTP server (lib/server), which puts the guard in front of every request.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { dataDir } from "../lib/config";
import { ensureMigrated } from "../lib/migrate";
import { startBatonServer } from "../lib/server";

const root = path.resolve(import.meta.dirname, "..");
const nextBin = path.join(root, "node_modules", ".bin", "next");
const dev = process.argv.includes("--dev");
const host = process.env.HOST || "127.0.0.1";
const port = Number(process.env.PORT || "3000");
const distDir = path.join(root, process.env.BATON_DIST_DIR || ".next");
process.env.NEXT_TELEMETRY_DISABLED = "1";
process.env.CHECKPOINT_DISABLE = "1";

const SOURCES = ["app", "components", "lib", "public", "proxy.ts", "prisma/schema.prisma", "next.config.ts", "package.json", "postcss.config.mjs"];

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

/** `next build` in its own process group, so a stop signal reaches its workers too. */
function build(): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(nextBin, ["build"], { cwd: root, env: process.env, stdio: "inherit", detached: true });
    const stop = (signal: NodeJS.Signals) => child.pid && process.kill(-child.pid, signal);
    process.once("SIGINT", stop).once("SIGTERM", stop);
    child.on("exit", (code, signal) => {
      process.off("SIGINT", stop).off("SIGTERM", stop);
      resolve(code ?? (signal ? 1 : 0));
    });
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
  const status = await build();
  if (status !== 0) {
    console.error("baton: the build failed (see above); nothing was started");
    process.exit(status);
  }
}
try {
  const server = await startBatonServer({ dir: root, host, port, dev });
  console.log(`baton: serving ${server.url}`);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => void server.close().then(() => process.exit(0)));
  }
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
