import "server-only";
import { cleanFields, cleanText, type Redaction } from "../secrets";
import { parseInput } from "../validation";
import { titleSchema } from "./schemas";
import type { DraftEntry } from "./store";

/**
 * The secrets check in front of lib/handoffs/store.ts's writes, apart from the store so that
 * what only reads threads (Claude Code's hooks, a bundle of their own) loads no secret rules.
 */
declare const cleaned: unique symbol;

/**
 * Texts that passed the secrets check (redacted, or refused per BATON_SECRETS): the one point
 * every text of a handoff passes before it is stored. Only `cleanEntry` and `cleanHandoffTexts`
 * make them, and the store's write functions take nothing else, so a writer cannot skip the
 * check. Doors run them before their write transaction, so a 64 KiB entry does not hold the
 * write lock for its scan (~2 ms); a checkpoint push that turns out to start a thread runs
 * cleanHandoffTexts inside its own.
 */
export type CleanEntry = DraftEntry & { readonly redactions: Redaction[]; readonly [cleaned]: true };
export type CleanHandoffTexts = { readonly title: string; readonly entries: CleanEntry[]; readonly redactions: Redaction[]; readonly [cleaned]: true };

export function cleanEntry(entry: DraftEntry): CleanEntry {
  const { text: content, redactions } = cleanText("content", entry.content);
  return { ...entry, content, redactions } as CleanEntry;
}

/** A new thread's title and first entries, checked together: one refusal names every field. */
export function cleanHandoffTexts(title: string, entries: DraftEntry[]): CleanHandoffTexts {
  const contentField = (index: number) => (entries.length === 1 ? "content" : `entries[${index}].content`);
  const fields: Record<string, string> = { title: parseInput(titleSchema, title) };
  entries.forEach((entry, index) => (fields[contentField(index)] = entry.content));
  const { texts, redactions } = cleanFields(fields);
  return {
    // Checked again: a marker can be longer than the secret it replaced.
    title: parseInput(titleSchema, texts.title),
    entries: entries.map((entry, index) => ({ ...entry, content: texts[contentField(index)], redactions: [] }) as unknown as CleanEntry),
    redactions,
  } as CleanHandoffTexts;
}
