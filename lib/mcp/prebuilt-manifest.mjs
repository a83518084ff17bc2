// @ts-check
/**
 * Where the prebuilt MCP server lives and whether it is current: read by the launcher
 * (lib/mcp/launch.mjs, plain Node) and written by the builder (lib/mcp/prebuild.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { projectRoot } from "../paths.mjs";

export const prebuiltDir = path.join(projectRoot, "node_modules", ".cache", "baton-mcp");
export const manifestFile = path.join(prebuiltDir, "current.json");

/** The prebuilt server's layout; a manifest of another version is stale. */
export const PREBUILT_VERSION = 3;

/** @typedef {{ version: number; entry: string; builtAt: number; inputs: string[] }} PrebuiltManifest */

/**
 * The entry file of the prebuilt server when no input changed since it was built, else null.
 * @returns {string | null}
 */
export function freshPrebuiltEntry() {
  /** @type {PrebuiltManifest} */
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(manifestFile, "utf8"));
  } catch {
    return null;
  }
  if (manifest.version !== PREBUILT_VERSION || typeof manifest.entry !== "string" || !Array.isArray(manifest.inputs)) return null;
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
