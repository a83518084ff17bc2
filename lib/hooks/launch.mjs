#!/usr/bin/env node
// @ts-check
// Fast start of `baton hook …` (Claude Code waits for a SessionStart hook before the session
// starts). With plain Node it runs the prebuilt hook command (node_modules/.cache/baton-hook, made
// by lib/hooks/prebuild.ts) when that is newer than every source it was built from; otherwise it
// runs the TypeScript sources through tsx, as correct but slower, and starts a build in a process
// of its own for the next hook.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
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
 * Runs `baton hook <args>` and returns its exit code.
 * @param {string[]} args
 * @returns {Promise<number>}
 */
export async function launchHook(args) {
  process.env.BATON_DATA_DIR ||= defaultDataDir();
  const entry = freshHookEntry();
  if (entry) {
    const prebuilt = /** @type {{ run: (args: string[]) => Promise<number> }} */ (createRequire(import.meta.url)(entry));
    return prebuilt.run(args);
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
