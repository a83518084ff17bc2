/**
 * Nesting limits for text Baton parses from callers (request bodies, imported JSON and YAML).
 * Parsers and everything after them (validators, JSON.stringify in messages, canonical JSON)
 * recurse once per level, so a document 100,000 levels deep would blow the stack or, in the
 * YAML parser, exhaust memory. These checks are linear scans that need no recursion.
 */

/** Deepest nesting Baton accepts: its documents use four or five levels. */
export const MAX_NESTING = 64;

export type TooDeep = { line: number; column: number };

const OPENERS = new Set(["[", "{"]);
const CLOSERS = new Set(["]", "}"]);

/**
 * Where JSON text first nests deeper than `limit` (`[` and `{` outside strings), or null. Exact
 * for valid JSON; invalid JSON is left for the parser to report.
 */
export function jsonTooDeep(text: string, limit = MAX_NESTING): TooDeep | null {
  let depth = 0;
  let line = 1;
  let lineStart = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (char === "\\") index++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === "\n") {
      line++;
      lineStart = index + 1;
    } else if (OPENERS.has(char)) {
      if (++depth > limit) return { line, column: index - lineStart + 1 };
    } else if (CLOSERS.has(char)) depth = Math.max(0, depth - 1);
  }
  return null;
}

/** Characters after which a YAML flow collection or quoted scalar may start (not inside a plain scalar). */
const BEFORE_VALUE = new Set([" ", "\t", ":", "?", ",", "[", "{", "-"]);

/**
 * Where YAML text may nest deeper than `limit`, or null: an over-estimate that adds, per line,
 * the open indentation levels, the compact `- `, `? ` and `: ` indicators at its start and the
 * open flow collections. It exists to keep the parser from recursing without bound; the exact
 * limit is checked on the parsed value (`valueTooDeep`).
 */
export function yamlTooDeep(text: string, limit = MAX_NESTING * 2): TooDeep | null {
  const indents: number[] = [];
  let flow = 0;
  const lines = text.split("\n");
  for (let number = 1; number <= lines.length; number++) {
    const raw = lines[number - 1];
    const content = raw.trimStart();
    if (content === "" || content.startsWith("#")) continue;
    const indent = raw.length - content.length;
    while (indents.length > 0 && indents[indents.length - 1] > indent) indents.pop();
    if (indents.length === 0 || indents[indents.length - 1] < indent) indents.push(indent);
    const compact = (content.match(/^(?:[-?:][ \t]+)*/)?.[0].match(/[-?:]/g) ?? []).length;
    const base = indents.length + compact;
    let quote: string | null = null;
    for (let index = 0; index < content.length; index++) {
      const char = content[index];
      if (quote) {
        if (quote === '"' && char === "\\") index++;
        else if (char === quote) quote = null;
        continue;
      }
      const atValueStart = flow > 0 || index === 0 || BEFORE_VALUE.has(content[index - 1]);
      if (!atValueStart) continue;
      if (char === '"' || char === "'") quote = char;
      else if (char === "#" && (index === 0 || content[index - 1] === " " || content[index - 1] === "\t")) break;
      else if (OPENERS.has(char)) flow++;
      else if (CLOSERS.has(char)) flow = Math.max(0, flow - 1);
      if (base + flow > limit) return { line: number, column: indent + index + 1 };
    }
    if (base + flow > limit) return { line: number, column: indent + 1 };
  }
  return null;
}

/** Whether a parsed value nests deeper than `limit` (walked with an explicit stack; ends on cycles). */
export function valueTooDeep(value: unknown, limit = MAX_NESTING): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== "object" || current === null) continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}

/** The message for a document or body nested too deep. */
export function tooDeepMessage(what: string, at?: TooDeep | null, limit = MAX_NESTING): string {
  const where = at ? ` (line ${at.line}, column ${at.column})` : "";
  return `${what} nests lists or objects more than ${limit} levels deep${where}; Baton's documents need only a few levels`;
}

/** Deepest Markdown nesting Baton formats; deeper text is shown as plain text. */
export const MAX_MARKDOWN_NESTING = 64;

const EMPHASIS = new Set(["*", "_", "~"]);
const isSpace = (char: string | undefined) => char === undefined || /\s/.test(char);

/**
 * Whether Markdown may nest deeper than `limit`: an over-estimate adding, per line, its
 * container markers (`>` and list markers, and indentation at two columns a level) to the
 * emphasis delimiters and `[` still open in its paragraph. Fenced code and thematic breaks
 * (`***`, `___`) count for nothing. Linear, so it can run on every render: the Markdown parser
 * and renderer recurse per level and slow down far more than linearly on such input.
 */
export function markdownTooDeep(text: string, limit = MAX_MARKDOWN_NESTING): boolean {
  let fence: string | null = null;
  let open = 0;
  let brackets = 0;
  for (const line of text.split("\n")) {
    const fenceMark = line.match(/^\s{0,3}(`{3,}|~{3,})/)?.[1];
    if (fence) {
      if (fenceMark && fenceMark[0] === fence[0] && fenceMark.length >= fence.length) fence = null;
      continue;
    }
    if (fenceMark) {
      fence = fenceMark;
      continue;
    }
    if (line.trim() === "") {
      // A blank line ends the paragraph: what was left open there can nest no further.
      open = 0;
      brackets = 0;
      continue;
    }
    if (/^\s*([*_-])(\s*\1){2,}\s*$/.test(line)) continue;
    let index = 0;
    let containers = 0;
    let columns = 0;
    for (; index < line.length; index++) {
      const char = line[index];
      if (char === " ") columns += 1;
      else if (char === "\t") columns += 4;
      else if (char === ">" || ((char === "-" || char === "+" || char === "*") && isSpace(line[index + 1]))) {
        containers++;
        // The space after a marker belongs to it, not to the indentation.
        if (line[index + 1] === " ") index++;
      } else {
        const marker = line.slice(index, index + 11).match(/^\d{1,9}[.)](?=\s|$)/)?.[0];
        if (!marker) break;
        containers++;
        index += marker.length - (line[index + marker.length] === " " ? 0 : 1);
      }
      if (containers + Math.floor(columns / 2) > limit) return true;
    }
    const base = containers + Math.floor(columns / 2);
    for (; index < line.length; index++) {
      const char = line[index];
      if (char === "[") brackets++;
      else if (char === "]") brackets = Math.max(0, brackets - 1);
      else if (EMPHASIS.has(char)) {
        let end = index;
        while (end < line.length && line[end] === char) end++;
        // A run after text closes that many; a run after a space (or at the start) touching text opens.
        if (!isSpace(line[index - 1])) open = Math.max(0, open - (end - index));
        else if (!isSpace(line[end])) open += end - index;
        index = end - 1;
      }
      if (base + open + brackets > limit) return true;
    }
  }
  return false;
}
