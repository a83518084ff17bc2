/** How much of each text is searched for paths, and how many paths are kept: bounded work per read. */
const SCANNED_CHARS = 64 * 1024;
const MAX_MENTIONS = 500;
const MAX_PATH_CHARS = 512;
// Words are split on whitespace and punctuation that never sits inside a path; each word is then
// checked segment by segment. Linear in the text: no pattern here can backtrack.
const WORD_BREAKS = /[\s`'"()[\]{}<>,;:|*!?=]+/;
const SEGMENT = /^[\w@+.-]+$/;
const FILE_NAME = /^[\w@+-][\w@+.-]*\.[A-Za-z][A-Za-z0-9]{0,7}$/;

/** A word as a repository path (`src/auth.ts`, `auth.ts`, `./lib/a.b.json`), or null. */
function asPath(word: string): string | null {
  const path = word.replace(/^(?:\.?\/)+/, "").replace(/\.+$/, "");
  if (path.length === 0 || path.length > MAX_PATH_CHARS) return null;
  const segments = path.split("/");
  if (!segments.every((segment) => SEGMENT.test(segment))) return null;
  return FILE_NAME.test(segments[segments.length - 1]) ? path : null;
}

/** Paths and file names mentioned in `texts`, as written (deduplicated, bounded). */
export function mentionedPaths(texts: Iterable<string>): Set<string> {
  const found = new Set<string>();
  for (const text of texts) {
    for (const word of text.slice(0, SCANNED_CHARS).split(WORD_BREAKS)) {
      const path = asPath(word);
      if (!path) continue;
      found.add(path);
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
