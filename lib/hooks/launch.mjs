#!/usr/bin/env node
// @ts-check
// Fast start of `baton hook …`: Claude Code waits for a SessionStart hook before the session
// starts. With plain Node it runs the prebuilt hook command (node_modules/.cache/baton-hook;
// loading and building shared with `baton mcp` in lib/prebuilt/, the code cache about 50 ms of a
// hook's start here). What is the hook's own: it lives too briefly for a timer, so a missing code
// cache is written after the run (keeping what the run compiled too), and after a run from the
// sources the build for the next hook happens in a process of its own that the hook never waits for.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { launchPrebuilt, prebuildInBackground } from "../prebuilt/prebuilt.mjs";

/**
 * Runs `baton hook <args>` and returns its exit code. A code cache that cannot be written is not
 * said: only speed is lost, and the hook's stderr is for its own one line.
 * @param {string[]} args
 * @returns {Promise<number>}
 */
export function launchHook(args) {
  return launchPrebuilt("hook", args, { codeCache: "after-run", prebuildLater: () => prebuildInBackground("hook") });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await launchHook(process.argv.slice(2));
}
