import "server-only";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { dataDir } from "../config";
import { Invalid } from "../errors";
import { emptyRefusal, showsSomething } from "../validation";
import { MAX_SHIFT_DOCUMENT_BYTES, PERSONA_SLUG_PATTERN, SESSION_PREFIX_PATTERN } from "./schemas";

/** A fenced code block's opening or closing line (CommonMark: up to 3 spaces, then 3 or more ` or ~). */
const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** Which lines are inside fenced code, fences included: Markdown text, never headings. An unclosed fence runs to the end. */
function fencedLines(lines: string[]): boolean[] {
  const fenced: boolean[] = [];
  let open: string | null = null;
  for (const line of lines) {
    const fence = FENCE.exec(line);
    if (open === null) {
      // A backtick fence's info string holds no backtick (else the line is inline code).
      if (fence && !(fence[1][0] === "`" && fence[2].includes("`"))) open = fence[1];
      fenced.push(open !== null);
      continue;
    }
    fenced.push(true);
    if (fence && fence[1][0] === open[0] && fence[1].length >= open.length && fence[2].trim() === "") open = null;
  }
  return fenced;
}

/**
 * The document without the template's headings left empty (a `##`–`######` heading followed by
 * nothing but blank lines up to the next heading or the end): what the desk saves, so a successor
 * reads what was written, not a form. Lines in fenced code are text, never headings: a template
 * quoted in a code block arrives whole. Everything else is kept as it is. A line scan, not the
 * Markdown parser: parsing a 256 KiB document took the server 3 to 5 s, every request waiting.
 */
export function withoutEmptySections(document: string): string {
  const lines = document.split("\n");
  const fenced = fencedLines(lines);
  const isHeading = (index: number, marks: RegExp) => !fenced[index] && marks.test(lines[index]);
  const kept: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    if (isHeading(index, /^#{2,6}\s/)) {
      let next = index + 1;
      while (next < lines.length && lines[next].trim() === "") next++;
      if (next === lines.length || isHeading(next, /^#{1,6}\s/)) {
        index = next - 1;
        continue;
      }
    }
    kept.push(lines[index]);
  }
  return `${kept.join("\n").trimEnd()}\n`;
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
  // abort: an empty document is said to be empty, not also to hold only headings.
  .refine(showsSomething, { error: emptyRefusal("document must not be empty: write what the successor needs to know"), abort: true })
  .refine((text) => showsSomething(text.replace(HEADING_LINE, "")), {
    error: "document has only headings: fill in at least one section (Goal, Done, In progress, Next steps, Blockers, Key files)",
  })
  .refine((text) => Buffer.byteLength(text, "utf8") <= MAX_SHIFT_DOCUMENT_BYTES, {
    error: `document must be at most ${MAX_SHIFT_DOCUMENT_BYTES / 1024} KiB of UTF-8`,
  });

/** `YYYYMMDDTHHmmss` in UTC. */
function fileTimestamp(at: Date): string {
  return at.toISOString().replace(/[-:]/g, "").slice(0, 15);
}

/**
 * The name shiftDocumentLocation gives a document of `shortId` at any time
 * (`20261129T101500-1a2b3c4d-9f8e7d6c.md`), as a pattern's source. Names made before the random
 * part was added (`20261129T101500-1a2b3c4d.md`) match too: their leftovers are cleaned alike.
 */
export const documentNamePattern = (shortId: string) => `\\d{8}T\\d{6}-${shortId}(?:-[0-9a-f]{8})?\\.md`;

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
 * Where an agent's shift document goes: `personas/<slug>/handoffs/<YYYYMMDDTHHmmss>-<8hex>-<8 random hex>.md`
 * under the data folder. Built from validated parts only, and checked to stay inside the folder.
 * The random part keeps each attempt's name its own: a retry in the second a killed attempt wrote
 * its document in would otherwise take that leftover's name and be refused as a handoff under way.
 */
export function shiftDocumentLocation(personaSlug: string, shortId: string, at: Date): DocumentLocation {
  if (!PERSONA_SLUG_PATTERN.test(personaSlug) || !SESSION_PREFIX_PATTERN.test(shortId)) {
    throw new Invalid(`cannot build a handoff path from persona ${JSON.stringify(personaSlug)} and id ${JSON.stringify(shortId)}`, {
      personaSlug: ["persona must be a slug such as developer-con-1"],
    });
  }
  const relative = ["personas", personaSlug, "handoffs", `${fileTimestamp(at)}-${shortId}-${randomBytes(4).toString("hex")}.md`].join("/");
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
