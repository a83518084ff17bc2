/** How much of each text is searched for paths, and how many paths are kept: bounded work per read. */
const SCANNED_CHARS = 64 * 1024;
const MAX_MENTIONS = 500;
// A path-like word with an extension: `src/auth.ts`, `auth.ts`, `./lib/a.b.json`.
const PATH_LIKE = /(?:[\w@+-][\w.@+-]*\/)*[\w@+-][\w@+-]*(?:\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]{0,7}\b/g;

/** Paths and file names mentioned in `texts`, as written (deduplicated, bounded). */
export function mentionedPaths(texts: Iterable<string>): Set<string> {
  const found = new Set<string>();
  for (const text of texts) {
    for (const match of text.slice(0, SCANNED_CHARS).matchAll(PATH_LIKE)) {
      found.add(match[0].replace(/^(?:\.\/)+/, ""));
      if (found.size >= MAX_MENTIONS) return found;
    }
  }
  return found;
}

/** Whether a repository path is one the handoff named: the same path, a path ending in it, or the same file name. */
export function isNamed(path: string, named: Set<string>): boolean {
  if (named.has(path)) return true;
  const parts = path.split("/");
  for (let index = 1; index < parts.length; index += 1) {
    if (named.has(parts.slice(index).join("/"))) return true;
  }
  return false;
}
