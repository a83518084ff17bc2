import { plainTextOf } from "../plain-text";
import type { HighlightedText } from "./types";

/**
 * Marks the index puts around matching words (private-use characters: no markup, nothing a
 * browser would interpret). Text that itself contains one is only highlighted wrongly: the
 * segments are shown as text either way.
 */
export const MATCH_START = "\uE000";
export const MATCH_END = "\uE001";

/** The marked text as runs of plain and matching text, without the marks. */
export function highlightedText(marked: string): HighlightedText {
  const segments: HighlightedText = [];
  let match = false;
  for (const part of marked.split(/([\uE000\uE001])/)) {
    if (part === MATCH_START || part === MATCH_END) {
      match = part === MATCH_START;
    } else if (part) {
      const last = segments.at(-1);
      if (last && last.match === match) last.text += part;
      else segments.push({ text: part, match });
    }
  }
  return segments;
}

/** A marked passage of an entry or a kept summary as text: its Markdown's words, marks kept. */
export function highlightedExcerpt(marked: string): HighlightedText {
  return highlightedText(plainTextOf(marked));
}
