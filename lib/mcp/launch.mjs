#!/usr/bin/env node
// @ts-check
// Fast start of the stdio MCP server: an MCP client waits for `initialize`, which `baton mcp`
// cannot answer within 400 ms through tsx. With plain Node it runs the prebuilt server
// (node_modules/.cache/baton-mcp; loading and building shared with the hook in lib/prebuilt/).
// What is the server's own: a server lives long, so a missing code cache is written 2 s after
// start (start-up and the first calls compiled), and after a start from the sources this process
// prebuilds the server for the next start a few seconds later.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { endOnUnwritableOutput } from "../closed-output.mjs";
import { launchPrebuilt } from "../prebuilt/prebuilt.mjs";
import { tierUpLikeNode24 } from "./tiering.mjs";

/** After this long the functions the server has compiled (start-up, first calls) go into the cache. */
export const CODE_CACHE_DELAY_MS = 2_000;
/** How long after a start from the sources the server is prebuilt for the next start. */
const PREBUILD_DELAY_MS = 3_000;

/** @param {string} problem */
function warn(problem) {
  process.stderr.write(`baton mcp: ${problem}; starts stay slower\n`);
}

function prebuildLater() {
  const timer = setTimeout(() => {
    import("../prebuilt/build.ts")
      .then(({ ensurePrebuilt }) => ensurePrebuilt("mcp"))
      .catch((/** @type {unknown} */ error) => warn(`could not prebuild the server (${error instanceof Error ? error.message : String(error)})`));
  }, PREBUILD_DELAY_MS);
  timer.unref();
}

/**
 * Runs `baton mcp <args>` and returns its exit code.
 * @param {string[]} args
 * @returns {Promise<number>}
 */
export function launch(args) {
  tierUpLikeNode24();
  return launchPrebuilt("mcp", args, { codeCache: { afterMs: CODE_CACHE_DELAY_MS }, prebuildLater, warn });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  endOnUnwritableOutput({ stdout: false });
  process.exitCode = await launch(process.argv.slice(2));
}
