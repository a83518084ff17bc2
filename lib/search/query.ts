/**
 * What a person typed into a search box, read as search terms, independent of the engine:
 * lib/search/fts5.ts writes them as an SQLite FTS5 query, lib/search/postgres.ts as a
 * PostgreSQL tsquery. Reading never fails: any text gives terms or none.
 *
 * - words: every one must be found (`jwt refresh`)
 * - `"…"`: a phrase, its words next to each other in that order (`"refresh token"`); an
 *   unclosed quote runs to the end
 * - a trailing `*`: a prefix (`migr*`, `"refresh tok"*`) of at least MIN_PREFIX_LENGTH
 *   characters; a shorter one is searched as the word itself (`t*` would match most words, and
 *   cost what reading most of the index costs)
 * - at most MAX_SEARCH_WORDS words in all: a longer phrase is cut, later terms left out
 *
 * Everything else is text: `AND`, `OR`, `NEAR`, `-`, `:`, `(` mean nothing special.
 */

export type SearchTerm = {
  /** The term's text as typed (without quotes or star); the index splits it into words. */
  text: string;
  /** Its last word matches any word it starts (`migr*` finds "migration"). */
  prefix: boolean;
};

/** Longest search a door accepts, in characters. */
export const MAX_SEARCH_LENGTH = 200;

/**
 * A search ranks at most this many of the newest matching entries, and as many of the newest
 * matching titles and kept summaries: a word in most entries costs what a rare one costs. Past
 * it, the answer says it is capped (more, older matches exist) instead of counting them all.
 */
export const SEARCH_MATCH_LIMIT = 1000;

/**
 * With filters (project, status, source, unread), a search keeps the matches of the handoffs they
 * admit among the newest SEARCH_MATCH_LIMIT; when those fill less than a page and more matches
 * exist, it reads this many of the newest matching entries (and as many titles and kept
 * summaries) instead. Cut at SEARCH_MATCH_LIMIT before filtering, a project's thread was hidden
 * whenever other threads held the newest thousand matches, and the page said nothing matched.
 */
export const FILTERED_SEARCH_SCAN = 2_000;

/** Shortest prefix a `*` makes. */
export const MIN_PREFIX_LENGTH = 3;
/** The prefix lengths SQLite's index keeps (prisma/migrations/*_search_prefix_index). */
const INDEXED_PREFIX_LENGTHS = [3, 4];

/**
 * Most words a query keeps, over all its terms: every word costs the index a lookup, a phrase's
 * words each their own; people type a handful. A phrase is cut after the word that reaches it,
 * and later terms are left out. Counted by terms alone, one quoted phrase of the commonest word
 * (`"a a a …"`, 99 words in 200 characters) read that word's matches 99 times: 2.3 s at a million
 * entries, in which SQLite's synchronous driver held up every other request of the process.
 */
export const MAX_SEARCH_WORDS = 16;

// Control characters (NUL included) separate terms like spaces: none of them is part of a word.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
// Letters, digits, marks and private-use characters are what the index keeps as words;
// a term made of none of them (`!!`, `-`) would ask for nothing.
const WORDS = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

/** The words of a term's text, as the index splits them (roughly: letters, digits and marks). */
export const wordsOf = (text: string): string[] => text.match(WORDS) ?? [];

/** Characters in the last word of `text`: a prefix term's prefix. */
const lastWordLength = (text: string) => [...(wordsOf(text).at(-1) ?? "")].length;

/** A prefix the index keeps as such; a longer one merges the terms it starts. */
export const prefixIsIndexed = (term: SearchTerm) => term.prefix && INDEXED_PREFIX_LENGTHS.includes(lastWordLength(term.text));

export function parseSearchQuery(input: string): SearchTerm[] {
  const text = input.replace(CONTROL, " ");
  const terms: SearchTerm[] = [];
  let wordsLeft = MAX_SEARCH_WORDS;
  const add = (raw: string, prefix: boolean) => {
    const words = [...raw.matchAll(WORDS)];
    if (words.length === 0 || wordsLeft === 0) return;
    // Cut after the last word it may keep; a cut phrase is no prefix (its last word is whole).
    const kept = words.length > wordsLeft ? raw.slice(0, words[wordsLeft - 1].index + words[wordsLeft - 1][0].length) : raw;
    terms.push({ text: kept, prefix: prefix && kept === raw && lastWordLength(raw) >= MIN_PREFIX_LENGTH });
    wordsLeft -= Math.min(words.length, wordsLeft);
  };
  let at = 0;
  while (at < text.length) {
    const char = text[at];
    if (/\s/.test(char)) {
      at++;
    } else if (char === '"') {
      const close = text.indexOf('"', at + 1);
      const end = close === -1 ? text.length : close;
      const starred = close !== -1 && text[close + 1] === "*";
      add(text.slice(at + 1, end), starred);
      at = end + 1 + (starred ? 1 : 0);
    } else {
      // A word runs to the next space or quote; stars at its end make it a prefix.
      let end = at;
      while (end < text.length && !/\s/.test(text[end]) && text[end] !== '"') end++;
      const word = text.slice(at, end);
      const stem = word.replace(/\*+$/, "");
      add(stem, stem.length < word.length);
      at = end;
    }
  }
  return terms;
}
