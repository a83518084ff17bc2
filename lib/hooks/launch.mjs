#!/usr/bin/env node
// @ts-check
// Fast start of `baton hook …` (Claude Code waits for a SessionStart hook before the session
// starts). With plain Node it runs the prebuilt hook command (node_modules/.cache/baton-hook, made
// by lib/hooks/prebuild.ts) when that is newer than every source it was built from, compiled
// with V8's code cache as the MCP launcher does (lib/mcp/launch.mjs; about 50 ms of a hook's
// start here); otherwise it runs the TypeScript sources through tsx, as correct but slower, and
// starts a build in a process of its own for the next hook.
import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";
import { defaultDataDir, projectRoot } from "../paths.mjs";
import { freshHookEntry } from "./prebuilt.mjs";

/** A detached build (lib/hooks/prebuild.ts's prebuildHookOnce): the hook itself never waits for it. */
function prebuildInBackground() {
  try {
    const script = "import('./lib/hooks/prebuild.ts').then((m) => m.prebuildHookOnce()).catch(() => {})";
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: projectRoot, detached: true, stdio: "ignore" });
    child.unref();
  } catch {
    // Only speed is lost: the next hook runs from the sources again.
  }
}

/**
 * Loads the CommonJS prebuilt hook as a script compiled with its code cache (`<entry>.cache`).
 * `saveCache` is set when there was none or V8 refused it: called after the run, it keeps what
 * the run compiled too (a hook lives too briefly for the MCP launcher's timer).
 * @param {string} entry
 * @returns {{ run: (args: string[]) => Promise<number>, saveCache: (() => void) | null }}
 */
function loadPrebuilt(entry) {
  const cacheFile = `${entry}.cache`;
  /** @type {Buffer | undefined} */
  let cachedData;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const source = fs.readFileSync(entry, "utf8");
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: entry, cachedData });
  const loaded = { exports: /** @type {{ run: (args: string[]) => Promise<number> }} */ ({}) };
  script.runInThisContext()(loaded.exports, createRequire(entry), loaded, entry, path.dirname(entry));
  const saveCache = () => {
    try {
      const temporary = `${cacheFile}.${process.pid}.tmp`;
      fs.writeFileSync(temporary, script.createCachedData());
      fs.renameSync(temporary, cacheFile);
    } catch {
      // Only speed is lost: the next hook compiles again.
    }
  };
  return { run: loaded.exports.run, saveCache: !cachedData || script.cachedDataRejected ? saveCache : null };
}

/**
 * Runs `baton hook <args>` and returns its exit code.
 * @param {string[]} args
 * @returns {Promise<number>}
 */
export async function launchHook(args) {
  process.env.BATON_DATA_DIR ||= defaultDataDir();
  const entry = freshHookEntry();
  if (entry) {
    const prebuilt = loadPrebuilt(entry);
    const code = await prebuilt.run(args);
    prebuilt.saveCache?.();
    return code;
  }
  prebuildInBackground();
  const { register } = await import("tsx/esm/api");
  // The checkout's tsconfig, whatever the hook's folder: its paths resolve "server-only".
  register({ tsconfig: fileURLToPath(new URL("../../tsconfig.json", import.meta.url)) });
  const { run } = await import("../cli/commands/hook.ts");
  return run(args);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await launchHook(process.argv.slice(2));
}
