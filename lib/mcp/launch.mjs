#!/usr/bin/env node
// @ts-check
// Fast start of the stdio MCP server. Registering tsx costs 250–400 ms on these machines (its
// loader runs in a worker thread) and tsx-loaded modules import several times more slowly, so
// `baton mcp` cannot answer `initialize` within 400 ms through tsx. This file runs with plain
// Node: when the prebuilt server (node_modules/.cache/baton-mcp, made by lib/mcp/prebuild.ts) is
// newer than every source it was built from, it runs that, compiled with V8's code cache (Node 20
// has no module compile cache; a cached classic script skips most parsing and compiling of the
// SDK and zod). Otherwise it runs the TypeScript sources through tsx and, a few seconds later,
// prebuilds the server for the next start.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";
import { defaultDataDir } from "../paths.mjs";
import { freshPrebuiltEntry } from "./prebuilt-manifest.mjs";

/** After this long the functions the server has compiled (start-up, first calls) go into the cache. */
const CODE_CACHE_DELAY_MS = 2_000;
/** How long after a start from the sources the server is prebuilt for the next start. */
const PREBUILD_DELAY_MS = 3_000;

/**
 * Loads the CommonJS prebuilt server as a script compiled with its code cache (`<entry>.cache`),
 * and writes the cache a moment after start-up when there was none or V8 refused it (another
 * Node, or a rebuilt server).
 * @param {string} entry
 * @returns {{ run: (args: string[]) => Promise<number> }}
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
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: entry,
    cachedData,
  });
  const loaded = { exports: {} };
  script.runInThisContext()(loaded.exports, createRequire(entry), loaded, entry, path.dirname(entry));
  if (!cachedData || script.cachedDataRejected) {
    const timer = setTimeout(() => {
      try {
        const temporary = `${cacheFile}.${process.pid}.tmp`;
        fs.writeFileSync(temporary, script.createCachedData());
        fs.renameSync(temporary, cacheFile);
      } catch (error) {
        process.stderr.write(`baton mcp: could not write the code cache (${error instanceof Error ? error.message : String(error)}); starts stay slower\n`);
      }
    }, CODE_CACHE_DELAY_MS);
    timer.unref();
  }
  return /** @type {{ run: (args: string[]) => Promise<number> }} */ (loaded.exports);
}

function prebuildLater() {
  const timer = setTimeout(() => {
    import("./prebuild.ts")
      .then(({ ensurePrebuiltServer }) => ensurePrebuiltServer())
      .catch((/** @type {unknown} */ error) => {
        process.stderr.write(`baton mcp: could not prebuild the server (${error instanceof Error ? error.message : String(error)}); starts stay slower\n`);
      });
  }, PREBUILD_DELAY_MS);
  timer.unref();
}

/**
 * Runs `baton mcp <args>` and returns its exit code.
 * @param {string[]} args
 * @returns {Promise<number>}
 */
export async function launch(args) {
  process.env.BATON_DATA_DIR ||= defaultDataDir();
  const entry = freshPrebuiltEntry();
  if (entry) return loadPrebuilt(entry).run(args);
  const { register } = await import("tsx/esm/api");
  // The checkout's tsconfig, wherever the client started us: its paths resolve "server-only".
  register({ tsconfig: fileURLToPath(new URL("../../tsconfig.json", import.meta.url)) });
  prebuildLater();
  const { run } = await import("../cli/commands/mcp.ts");
  return run(args);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await launch(process.argv.slice(2));
}
