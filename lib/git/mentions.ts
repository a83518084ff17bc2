import { LRUCache } from "lru-cache";

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

/** The paths one text mentions, in order (deduplicated, bounded). */
function pathsIn(text: string): readonly string[] {
  const found = new Set<string>();
  for (const word of text.slice(0, SCANNED_CHARS).split(WORD_BREAKS)) {
    const path = asPath(word);
    if (!path) continue;
    found.add(path);
    if (found.size >= MAX_MENTIONS) break;
  }
  return [...found];
}

/**
 * Each text's paths, remembered by the text itself, up to REMEMBERED_TEXT_CHARS of texts: a
 * thread's entries never change, so a thread read afresh after an append scans only the new
 * entry (scanning a 300-entry thread's 110 KB word by word took about a millisecond).
 */
const REMEMBERED_TEXT_CHARS = 4 * 1024 * 1024;
const pathsByText = new LRUCache<string, readonly string[]>({ maxSize: REMEMBERED_TEXT_CHARS, sizeCalculation: (_paths, text) => Math.max(1, text.length) });

/** Paths and file names mentioned in `texts`, as written, in order (deduplicated, bounded). */
export function mentionedPaths(texts: Iterable<string>): Set<string> {
  const found = new Set<string>();
  for (const text of texts) {
    let paths = pathsByText.get(text);
    if (paths === undefined) {
      paths = pathsIn(text);
      pathsByText.set(text, paths);
    }
    for (const path of paths) {
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
