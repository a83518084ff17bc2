// @ts-check
/**
 * Where the prebuilt hook command lives and whether it is current: read by the launcher
 * (lib/hooks/launch.mjs, plain Node) and written by the builder (lib/hooks/prebuild.ts). The
 * same layout as the prebuilt MCP server's (lib/mcp/prebuilt-manifest.mjs), in a folder of its own.
 */
import fs from "node:fs";
import path from "node:path";
import { projectRoot } from "../paths.mjs";

export const hookPrebuiltDir = path.join(projectRoot, "node_modules", ".cache", "baton-hook");
export const hookManifestFile = path.join(hookPrebuiltDir, "current.json");

/** The prebuilt hook's layout; a manifest of another version is stale. */
export const HOOK_PREBUILT_VERSION = 1;

/** @typedef {{ version: number; entry: string; builtAt: number; inputs: string[] }} HookManifest */

/**
 * The entry file of the prebuilt hook command when none of its inputs changed since it was built, else null.
 * @returns {string | null}
 */
export function freshHookEntry() {
  /** @type {HookManifest} */
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(hookManifestFile, "utf8"));
  } catch {
    return null;
  }
  if (manifest.version !== HOOK_PREBUILT_VERSION || typeof manifest.entry !== "string" || !Array.isArray(manifest.inputs)) return null;
  for (const input of [manifest.entry, ...manifest.inputs]) {
    const stat = fs.statSync(input, { throwIfNoEntry: false });
    if (!stat || (input !== manifest.entry && stat.mtimeMs > manifest.builtAt)) return null;
  }
  return manifest.entry;
}
