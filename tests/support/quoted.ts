import { expect } from "vitest";

/** Every character some reader takes as the end of a line. */
const LINE_BREAKS = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/;

/**
 * The lines of `note` that are Baton's own: outside every block fenced with the note's fence
 * (between `BEGIN QUOTED … [fence]` and `END QUOTED … [fence]`, lib/pickup/quote.ts). The blocks
 * must balance.
 */
export function linesOutsideFences(note: string): string[] {
  const fence = /\[(q-[0-9a-f]{12})\] -----/.exec(note)?.[1];
  const outside: string[] = [];
  let depth = 0;
  for (const line of note.split(LINE_BREAKS)) {
    if (fence && line.startsWith("----- BEGIN QUOTED ") && line.endsWith(`[${fence}] -----`)) depth += 1;
    else if (fence && line.startsWith("----- END QUOTED ") && line.endsWith(`[${fence}] -----`)) depth -= 1;
    else if (depth === 0) outside.push(line);
  }
  expect(depth).toBe(0);
  return outside;
}
