import type { EntryView } from "../handoffs/views";
import type { SourceFormat, HandoffSnapshot } from "./types";

/**
 * Questions nobody has answered yet: asked after the latest decision, and with no entry that
 * answers them (`answers`). The one rule for a kept bundle, a closing summary and the exports.
 */
export function openQuestions<Entry extends EntryView>(entries: Entry[]): Entry[] {
  const decidedAt = entries.findLast((entry) => entry.type === "decision")?.seq ?? 0;
  const answered = new Set(entries.flatMap((entry) => (entry.answers === null ? [] : [entry.answers])));
  return entries.filter((entry) => entry.type === "question" && entry.seq > decidedAt && !answered.has(entry.number));
}

/** Files the thread's source document named (handoff.json, handoff.yaml, a bundle's refs). */
export function sourceFiles(snapshot: HandoffSnapshot): string[] {
  return snapshot.source?.metadata.files ?? [];
}

/**
 * When a thread was imported from `format` and the cut includes the whole import, its source
 * document and the entries added in Baton since; otherwise null (the export maps entries).
 */
export function latestUnchangedImport(
  snapshot: HandoffSnapshot,
  format: SourceFormat,
): { document: string; added: EntryView[] } | null {
  const { source, cut, entries } = snapshot;
  if (!source || source.format !== format) return null;
  const importedThrough = source.metadata.importedThroughSeq ?? 0;
  if (cut !== null && cut < importedThrough) return null;
  return { document: source.document, added: entries.filter((entry) => entry.seq > importedThrough) };
}
