import type { Nodes } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { markdownTooDeep } from "./nesting";

/**
 * Markdown as one line of plain text, for previews (the attention list, search excerpts,
 * notifications): what a reader sees of it, without `**`, backticks, table pipes or `#`. The
 * thread itself renders the Markdown. Client-safe: the browser's notifications use it too.
 */

/** Markdown read for a preview, at most: a preview shows a line, and parsing costs in proportion. */
const MAX_PARSED_CHARACTERS = 4_000;

/** Made once: building GFM's extensions for each call was a third of a short passage's parse. */
const PARSE_OPTIONS = { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] };

/**
 * Every character Markdown (with GFM) can read as syntax anywhere in a line, and those that start
 * a block at a line's start (lists, headings, quotes, setext and thematic breaks, a table's
 * delimiter row: `:-` under a line makes it a table's header even without pipes). A text with
 * none of them parses to its own words, so it skips the parser: most search passages and
 * questions are prose, and a page of 50 passages spent 7 ms parsing them. NUL is here because
 * the parser replaces it. tests/plain-text.test.ts checks this against the parser.
 */
const MARKDOWN_SYNTAX = /[\0\\`*_~[\]<>|&]|^[ \t]*(?:[-+=#]|:-|\d+[.)])/m;

function textOf(node: Nodes, out: string[]): void {
  switch (node.type) {
    case "text":
    case "inlineCode":
    case "code":
      out.push(node.value);
      return;
    case "image":
      out.push(node.alt ?? "");
      return;
    case "html":
    case "definition":
    case "footnoteDefinition":
    case "thematicBreak":
      return;
    case "break":
      out.push(" ");
      return;
  }
  if (!("children" in node)) return;
  // Block-level children (paragraphs, list items, cells) read as words apart; table cells with a dot between.
  const apart = node.type === "root" || node.type === "list" || node.type === "listItem" || node.type === "blockquote" || node.type === "table";
  const separator = node.type === "tableRow" ? " · " : apart ? " " : "";
  node.children.forEach((child, index) => {
    if (index > 0 && separator) out.push(separator);
    textOf(child as Nodes, out);
  });
}

/** What a reader sees of `source` once the parser has read it, before spaces are folded. */
export function parsedWords(source: string): string {
  // Nested deeper than any real document: parsing it would overflow the stack, and the thread shows it as it is too (components/ui/markdown.tsx).
  if (markdownTooDeep(source)) return source;
  const out: string[] = [];
  textOf(fromMarkdown(source, PARSE_OPTIONS), out);
  return out.join("");
}

/**
 * `markdown` as plain text on one line, cut to `maxCharacters` with an ellipsis. `continues`: the
 * markdown given is the start of a longer text (a reader fetched only its start), so an ellipsis
 * ends it however short its words are.
 */
export function plainTextOf(markdown: string, maxCharacters = Infinity, continues = false): string {
  const cut = continues || markdown.length > MAX_PARSED_CHARACTERS;
  const source = markdown.slice(0, MAX_PARSED_CHARACTERS);
  const text = (MARKDOWN_SYNTAX.test(source) ? parsedWords(source) : source).replace(/\s+/g, " ").trim();
  if (text.length > maxCharacters) return `${text.slice(0, maxCharacters).trimEnd()}…`;
  return cut && !text.endsWith("…") ? `${text}…` : text;
}
