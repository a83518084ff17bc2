/**
 * A stored date as every view shows it: ISO-8601 with `Z`. Client-safe (no server code): the
 * views of handoffs, agents and changes share it.
 */
const STORED_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/;
/** SQLite's CURRENT_TIMESTAMP (a column default), which is UTC without saying so. */
const SQLITE_DEFAULT = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?$/;

/** `2026-11-22T06:54:51.471+00:00` (as both engines hand dates back) or SQLite's `2026-11-22 06:54:51` as ISO-8601. */
export function isoOf(stored: string): string {
  if (STORED_UTC.test(stored)) return `${stored.slice(0, 23)}Z`;
  return new Date(SQLITE_DEFAULT.test(stored) ? `${stored.replace(" ", "T")}Z` : stored).toISOString();
}
