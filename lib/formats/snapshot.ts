import type { EntryView } from "../handoffs/views";
import type { SourceFormat, HandoffSnapshot } from "./types";

/** Questions asked after the latest decision: nobody has answered them yet. */
export function openQuestions(entries: EntryView[]): EntryView[] {
  const decidedAt = entries.findLast((entry) => entry.type === "decision")?.seq ?? 0;
  return entries.filter((entry) => entry.type === "question" && entry.seq > decidedAt);
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
