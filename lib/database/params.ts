import { Invalid } from "../errors";
import type { Params } from "./types";

/**
 * Refuses a text parameter holding NUL (U+0000) or half of a UTF-16 surrogate pair (JSON's
 * `"\ud800"`) on both engines: PostgreSQL's text cannot store NUL (the statement would fail as a
 * server error), and both engines would store a lone surrogate as U+FFFD, another text than the
 * one sent; one rule keeps the engines alike. Every statement's parameters pass here, whatever
 * door or field they came from.
 */
export function checkedParams(params: Params): Params {
  for (const value of params) {
    if (typeof value !== "string") continue;
    if (value.includes("\u0000")) throw new Invalid("text must not contain the NUL character (U+0000); remove it and send again");
    if (!value.isWellFormed()) {
      throw new Invalid("text must be valid Unicode: it holds half of a surrogate pair (such as \\ud800 alone); remove it and send again");
    }
  }
  return params;
}

/** `?, ?, …`: the placeholders of an `IN (…)` list of `count` values (at least one). */
export const placeholders = (count: number): string => Array.from({ length: count }, () => "?").join(", ");

/** `?` → `$1…` outside quotes: a statement written for both engines, as PostgreSQL reads it. */
export function numberedParameters(text: string): string {
  let index = 0;
  let quote: string | null = null;
  let out = "";
  for (const char of text) {
    if (quote) {
      if (char === quote) quote = null;
    } else if (char === "'" || char === '"') {
      quote = char;
    } else if (char === "?") {
      out += `$${++index}`;
      continue;
    }
    out += char;
  }
  return out;
}
