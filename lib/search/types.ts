/**
 * What a search answers besides the handoffs: which words matched, and where. Client-safe: the
 * history list renders these. Text comes as segments, never markup, so it is shown as text.
 */
import type { ClientSide, EntryType } from "../handoffs/schemas";

/** A text cut into runs; `match` marks the runs the query's words found. */
export type HighlightedText = { text: string; match: boolean }[];

/** The passage a handoff matched in, when it was not only its title. */
export type SearchExcerpt =
  /** `number`: the entry's number in its thread (#1 is the first), what the result shows and links to. */
  | { in: "entry"; seq: number; number: number; type: EntryType; fromClient: ClientSide; text: HighlightedText }
  /** A completed thread's entries are wiped; the summary of its kept bundle stays findable. */
  | { in: "kept_summary"; text: HighlightedText };

export type SearchMatch = {
  /** The whole title, its matching words marked (none when only entries matched). */
  title: HighlightedText;
  excerpt: SearchExcerpt | null;
};
