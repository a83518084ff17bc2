import "server-only";
import fs from "node:fs";
import path from "node:path";

/** What the published package's CommonJS bundles (CLI, MCP server, hook) load from node_modules: native code, optional native parts. */
export const BUNDLE_EXTERNALS = ["better-sqlite3", "pg"];

/**
 * The folders of packages `names` and of everything they depend on (dependencies, recursively),
 * found as Node finds them: in `node_modules` beside `from` and above it, up to `root` (the
 * published package's build stops at Next's trace; setup's copy at npm's install folder).
 * Packages in `skip`, and missing ones (optional, left out), are not followed.
 */
export function dependencyFolders(names: string[], options: { from: string; root: string; skip?: ReadonlySet<string> }): Map<string, string> {
  const found = new Map<string, string>();
  const locate = (name: string, from: string): string | null => {
    for (let folder = from; ; folder = path.dirname(folder)) {
      const candidate = path.join(folder, "node_modules", name);
      if (fs.existsSync(path.join(candidate, "package.json"))) return candidate;
      if (folder === options.root || path.dirname(folder) === folder) return null;
    }
  };
  const visit = (name: string, from: string) => {
    if (found.has(name) || options.skip?.has(name)) return;
    const folder = locate(name, from);
    if (!folder) return;
    found.set(name, folder);
    const manifest = JSON.parse(fs.readFileSync(path.join(folder, "package.json"), "utf8")) as { dependencies?: Record<string, string> };
    for (const dependency of Object.keys(manifest.dependencies ?? {})) visit(dependency, folder);
  };
  for (const name of names) visit(name, options.from);
  return found;
}
