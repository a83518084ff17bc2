import "server-only";
import fs from "node:fs";
import path from "node:path";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { z } from "zod";
import { dataDir } from "../config";
import { Invalid } from "../errors";
import { markdownTooDeep } from "../nesting";
import { MAX_SHIFT_DOCUMENT_BYTES, PERSONA_SLUG_PATTERN, SESSION_PREFIX_PATTERN } from "./schemas";

/** Made once, as lib/plain-text.ts does: GFM, as the page renders the document. */
const PARSE_OPTIONS = { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] };

/**
 * The document without the template's headings left empty (a `##`–`######` heading followed by
 * nothing but blank lines up to the next heading or the end): what the desk saves, so a successor
 * reads what was written, not a form. Headings are found by parsing the Markdown, so lines in a
 * code block, a quote or a list are never taken for headings and nothing in them is dropped;
 * everything else is kept as it is. A document nested too deep to parse is kept whole.
 */
export function withoutEmptySections(document: string): string {
  const lines = document.split("\n");
  const dropped = new Set<number>();
  if (!markdownTooDeep(document)) {
    const blocks = fromMarkdown(document, PARSE_OPTIONS).children;
    blocks.forEach((block, index) => {
      const next = blocks[index + 1];
      if (block.type !== "heading" || block.depth < 2 || (next && next.type !== "heading")) return;
      // The heading's own lines (two for a setext heading) and the blank ones after it; positions count lines from 1.
      const until = next ? next.position!.start.line - 1 : lines.length;
      for (let line = block.position!.start.line; line <= until; line++) dropped.add(line - 1);
    });
  }
  return `${lines.filter((_, index) => !dropped.has(index)).join("\n").trimEnd()}\n`;
}

/** What the editor starts with: the headings a successor looks for. */
export const SHIFT_DOCUMENT_TEMPLATE = `# Handoff

## Goal


## Done


## In progress


## Next steps


## Blockers


## Key files

`;

// One line each: `[ \t]` never crosses a newline, so a line of bare marks ("#") takes no text
// from the line after it.
const HEADING_LINE = /^[ \t]*#{1,6}(?:[ \t].*)?$/gm;

/** The shift document: refused when empty or when it holds nothing but headings. */
export const shiftDocumentSchema = z
  .string({ error: "document is required: write what the successor needs to pick up the work" })
  .refine((text) => text.trim().length > 0, { error: "document must not be empty: write what the successor needs to know" })
  .refine((text) => text.replace(HEADING_LINE, "").trim().length > 0, {
    error: "document has only headings: fill in at least one section (Goal, Done, In progress, Next steps, Blockers, Key files)",
  })
  .refine((text) => Buffer.byteLength(text, "utf8") <= MAX_SHIFT_DOCUMENT_BYTES, {
    error: `document must be at most ${MAX_SHIFT_DOCUMENT_BYTES / 1024} KiB of UTF-8`,
  });

/** `YYYYMMDDTHHmmss` in UTC. */
function fileTimestamp(at: Date): string {
  return at.toISOString().replace(/[-:]/g, "").slice(0, 15);
}

export type DocumentLocation = {
  /** Relative to the data folder, forward slashes: what the record stores and the prompt shows. */
  relative: string;
  absolute: string;
};

/** True when `candidate` is the folder `root` or inside it. */
export function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/**
 * Where an agent's shift document goes: `personas/<slug>/handoffs/<YYYYMMDDTHHmmss>-<8hex>.md`
 * under the data folder. Built from validated parts only, and checked to stay inside the folder.
 */
export function shiftDocumentLocation(personaSlug: string, shortId: string, at: Date): DocumentLocation {
  if (!PERSONA_SLUG_PATTERN.test(personaSlug) || !SESSION_PREFIX_PATTERN.test(shortId)) {
    throw new Invalid(`cannot build a handoff path from persona ${JSON.stringify(personaSlug)} and id ${JSON.stringify(shortId)}`, {
      personaSlug: ["persona must be a slug such as developer-con-1"],
    });
  }
  const relative = ["personas", personaSlug, "handoffs", `${fileTimestamp(at)}-${shortId}.md`].join("/");
  const root = dataDir();
  const absolute = path.resolve(root, relative);
  if (!isInside(root, absolute)) throw new Invalid(`handoff path ${relative} would leave the data folder`);
  return { relative, absolute };
}

/**
 * The real location of a stored relative path, or null when it resolves (through `..`, an
 * absolute path or a symbolic link) outside the data folder.
 */
export function resolveStoredPath(relative: string): string | null {
  if (relative.includes("\0") || path.isAbsolute(relative)) return null;
  const root = dataDir();
  const absolute = path.resolve(root, relative);
  if (!isInside(root, absolute)) return null;
  let realRoot: string;
  try {
    realRoot = fs.realpathSync(root);
  } catch {
    return null;
  }
  try {
    return isInside(realRoot, fs.realpathSync(absolute)) ? absolute : null;
  } catch {
    // Missing: nothing to follow, and the lexical check above already holds.
    return absolute;
  }
}
