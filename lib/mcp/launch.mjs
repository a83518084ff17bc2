#!/usr/bin/env node
// Fast start of the stdio MCP server. Registering tsx costs 250–400 ms on these machines (its
// loader runs in a worker thread) and tsx-loaded modules import several times more slowly, so
// `baton mcp` cannot answer `initialize` within 400 ms through tsx. This file runs with plain
// Node: when the prebuilt bundle of the server (node_modules/.cache/baton-mcp, made by
// lib/mcp/bundle.ts) is newer than every source it was built from, it runs that, compiled with
// V8's code cache (Node 20 has no module compile cache; a cached classic script skips most
// parsing and compiling of the SDK and zod). Otherwise it falls back to tsx and the TypeScript
// sources, which rebuild the bundle for the next start.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const bundleCacheDir = path.join(projectRoot, "node_modules", ".cache", "baton-mcp");
export const bundleManifestFile = path.join(bundleCacheDir, "current.json");

/** The bundle's layout; a manifest of another version is stale. */
export const BUNDLE_VERSION = 2;

/** The entry file of the current bundle when no input changed since it was built, else null. */
export function freshBundleEntry() {
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(bundleManifestFile, "utf8"));
  } catch {
    return null;
  }
  if (manifest.version !== BUNDLE_VERSION || typeof manifest.entry !== "string" || !Array.isArray(manifest.inputs)) return null;
  for (const input of [manifest.entry, ...manifest.inputs]) {
    let stat;
    try {
      stat = fs.statSync(input);
    } catch {
      return null;
    }
    if (input !== manifest.entry && stat.mtimeMs > manifest.builtAt) return null;
  }
  return manifest.entry;
}

/** After this long the functions the server has compiled (start-up, first calls) go into the cache. */
const CODE_CACHE_DELAY_MS = 2_000;

/**
 * Loads the CommonJS bundle as a script compiled with its code cache (`<entry>.cache`), and
 * writes the cache a moment after start-up when there was none or V8 refused it (another Node,
 * or a rebuilt bundle).
 */
function loadBundle(entry) {
  // The script's dynamic imports (Prisma's WASM query compiler, a builtin) are rewritten to call
  // this: a script compiled from a code cache on Node 20 loses its dynamic-import callback.
  globalThis[Symbol.for("baton.import")] = (specifier) => import(specifier);
  const cacheFile = `${entry}.cache`;
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
        process.stderr.write(`baton mcp: could not write the code cache (${error.message}); starts stay slower\n`);
      }
    }, CODE_CACHE_DELAY_MS);
    timer.unref();
  }
  return loaded.exports;
}

/** Runs `baton mcp <args>` and returns its exit code. */
export async function launch(args) {
  process.env.BATON_DATA_DIR ||= path.join(projectRoot, "data");
  const entry = freshBundleEntry();
  if (entry) return loadBundle(entry).run(args);
  const { register } = await import("tsx/esm/api");
  register();
  const { run } = await import("../cli/commands/mcp.ts");
  return run(args);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await launch(process.argv.slice(2));
}
