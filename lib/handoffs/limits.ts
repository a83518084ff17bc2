/**
 * How much of a thread one answer carries. Client-safe (no server imports): the thread page
 * reads these too.
 */

/**
 * Bytes of entries one `get_handoff` answer may carry: each entry's JSON as the answer serializes
 * it, counted once per appearance (a new entry is in `entries` and again in `new_entries`). An
 * MCP tool result carries the answer twice (structured and as text), and Claude Code cuts tool
 * output at about 25k tokens: at 110 KB the whole MCP message stays under 256 KB.
 */
export const THREAD_ANSWER_BUDGET_BYTES = 110_000;

/** The most entries one answer may be asked for (`limit`). */
export const MAX_THREAD_LIMIT = 1000;

/** `before_seq` past every seq: "the latest entries". */
export const END_OF_THREAD = Number.MAX_SAFE_INTEGER;

/**
 * Entries per page on the thread page (first render and each "Load earlier"). Rendering Markdown
 * is most of a thread page's server time, so the first page is kept short.
 */
export const THREAD_PAGE_SIZE = 50;

/**
 * The thread page's byte budget per page: its HTML carries each entry twice (rendered, and as
 * data for the live view), so it asks for less than an API answer may carry.
 */
export const THREAD_PAGE_BUDGET_BYTES = 64_000;
