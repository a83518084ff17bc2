/**
 * `npm start` (and `npm run dev` with --dev): migrates the database, builds when the build is
 * missing or older than the sources, then serves on HOST:PORT (default 127.0.0.1:3000).
 */
import { execFileSync, spawn } from "node:child_process";
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

ensureMigrated();
console.log(`baton: data in ${dataDir()}`);
if (!dev && !buildIsCurrent()) {
  console.log("baton: building the dashboard (once per change of the sources)…");
  execFileSync(nextBin, ["build"], { cwd: root, env, stdio: "inherit" });
}
const server = spawn(nextBin, [dev ? "dev" : "start", "-H", host, "-p", port], { cwd: root, env, stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => server.kill(signal));
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
