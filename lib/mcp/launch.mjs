#!/usr/bin/env node
// Fast start of the stdio MCP server. Registering tsx costs 250–400 ms on these machines (its
// loader runs in a worker thread) and tsx-loaded SDK modules import about twice as slowly, so
// `baton mcp` cannot answer `initialize` within 400 ms through tsx. This file runs with plain
// Node: when the prebuilt bundle of the server (node_modules/.cache/baton-mcp, made by
// lib/mcp/bundle.ts) is newer than every source it was built from, it imports that; otherwise it
// falls back to tsx and the TypeScript sources, which rebuild the bundle for the next start.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const bundleCacheDir = path.join(projectRoot, "node_modules", ".cache", "baton-mcp");
export const bundleManifestFile = path.join(bundleCacheDir, "current.json");

/** The entry file of the current bundle when no input changed since it was built, else null. */
export function freshBundleEntry() {
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(bundleManifestFile, "utf8"));
  } catch {
    return null;
  }
  if (typeof manifest.entry !== "string" || !Array.isArray(manifest.inputs)) return null;
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

/** Runs `baton mcp <args>` and returns its exit code. */
export async function launch(args) {
  process.env.BATON_DATA_DIR ||= path.join(projectRoot, "data");
  const entry = freshBundleEntry();
  if (entry) {
    const { run } = await import(pathToFileURL(entry).href);
    return run(args);
  }
  const { register } = await import("tsx/esm/api");
  register();
  const { run } = await import("../cli/commands/mcp.ts");
  return run(args);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await launch(process.argv.slice(2));
}
