#!/usr/bin/env node
// @ts-check
/**
 * `npm start`: builds when the build is missing or older than the sources (scripts/build-server.ts,
 * through tsx, once per change), then runs the compiled server in this process: plain Node, no
 * TypeScript loader at run time. BATON_DIST_DIR picks the build folder (default .next);
 * BATON_SKIP_BUILD=1 serves the build as it is (a second server beside one that just built it).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { projectRoot } from "../lib/paths.mjs";
import { exitUnlessSupportedNode } from "../lib/supported-node.mjs";

exitUnlessSupportedNode();

const distDir = path.join(projectRoot, process.env.BATON_DIST_DIR || ".next");
const serverEntry = path.join(distDir, "baton-server", "server.mjs");
process.env.NEXT_TELEMETRY_DISABLED = "1";
process.env.CHECKPOINT_DISABLE = "1";

const SOURCES = ["app", "components", "lib", "public", "scripts", "proxy.ts", "prisma/schema.prisma", "next.config.ts", "package.json", "postcss.config.mjs"];

/** @param {string} entry @returns {number} */
function newestSourceTime(entry) {
  if (!fs.existsSync(entry)) return 0;
  const stat = fs.statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  if (entry.endsWith(path.join("lib", "generated"))) return 0;
  return Math.max(0, ...fs.readdirSync(entry).map((name) => newestSourceTime(path.join(entry, name))));
}

function buildIsCurrent() {
  if (!fs.existsSync(serverEntry) || !fs.existsSync(path.join(distDir, "BUILD_ID"))) return false;
  const builtAt = fs.statSync(serverEntry).mtimeMs;
  return SOURCES.every((source) => newestSourceTime(path.join(projectRoot, source)) <= builtAt);
}

/** The build in its own process group, so a stop signal reaches `next build`'s workers too. @returns {Promise<number>} */
function build() {
  return new Promise((resolve) => {
    const child = spawn(path.join(projectRoot, "node_modules", ".bin", "tsx"), [path.join(projectRoot, "scripts", "build-server.ts")], {
      cwd: projectRoot,
      env: process.env,
      stdio: "inherit",
      detached: true,
    });
    /** @param {NodeJS.Signals} signal */
    const stop = (signal) => child.pid && process.kill(-child.pid, signal);
    process.once("SIGINT", stop).once("SIGTERM", stop);
    child.on("exit", (code, signal) => {
      process.off("SIGINT", stop).off("SIGTERM", stop);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

/** A marker per server running from this build, named by its process id. */
const servingDir = path.join(distDir, "running-servers");

/** Process ids of the servers running from this build; markers of ended ones (a SIGKILL leaves them) are removed. @returns {number[]} */
function runningServers() {
  const names = fs.existsSync(servingDir) ? fs.readdirSync(servingDir) : [];
  return names.map(Number).filter((pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      // EPERM: alive, another user's.
      if (/** @type {NodeJS.ErrnoException} */ (error).code === "EPERM") return true;
      fs.rmSync(path.join(servingDir, String(pid)), { force: true });
      return false;
    }
  });
}

if (!process.env.BATON_SKIP_BUILD && !buildIsCurrent()) {
  // A build replaces the chunks a running server's pages name: its pages would load without their scripts (500s).
  const running = runningServers();
  if (running.length > 0) {
    console.error(
      `baton: the sources changed, but Baton (process ${running.join(", ")}) serves the current build in ${path.relative(projectRoot, distDir)}; stop it and start again to rebuild, or serve the current build beside it with BATON_SKIP_BUILD=1`,
    );
    process.exit(1);
  }
  console.log("baton: building the dashboard and the server (once per change of the sources)…");
  const status = await build();
  if (status !== 0) {
    console.error("baton: the build failed (see above); nothing was started");
    process.exit(status);
  }
}
// Next reads the configuration the build resolved instead of compiling next.config.ts with SWC at
// every start (its native binding alone is 24 MB resident), as its standalone server and the
// published package (lib/package/entry.mjs) do.
const { config } = JSON.parse(fs.readFileSync(path.join(distDir, "required-server-files.json"), "utf8"));
process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = JSON.stringify(config);
const marker = path.join(servingDir, String(process.pid));
fs.mkdirSync(servingDir, { recursive: true });
fs.writeFileSync(marker, "");
process.once("exit", () => fs.rmSync(marker, { force: true }));
await import(pathToFileURL(serverEntry).href);
