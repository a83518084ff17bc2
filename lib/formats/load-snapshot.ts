import type { Tx } from "../db";
import { Invalid } from "../errors";
import type { HandoffSource } from "../generated/prisma/client";
import { toEntryView, toHandoffView } from "../handoffs/views";
import { loadHandoff } from "../handoffs/load";
import type { QualityWarning, SourceFormat, SourceMetadata, SourceRecord, ThreadSnapshot } from "./types";

function parseJsonColumn<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

export function metadataOf(row: Pick<HandoffSource, "metadata">): SourceMetadata {
  return parseJsonColumn<SourceMetadata>(row.metadata, {});
}

export function warningsOf(row: Pick<HandoffSource, "warnings">): QualityWarning[] {
  return parseJsonColumn<QualityWarning[]>(row.warnings, []);
}

export function toSourceRecord(row: HandoffSource): SourceRecord {
  return { format: row.format as SourceFormat, document: row.document, metadata: metadataOf(row), artifactId: row.artifactId };
}

/**
 * The thread cut at `cut` (default: its last entry) with its source. A cut must be the seq of
 * one of the thread's entries, so "cut at #N" always names something that was written.
 */
export async function loadSnapshot(tx: Tx, id: string, cut: number | null = null): Promise<ThreadSnapshot> {
  const handoff = toHandoffView(await loadHandoff(tx, id));
  const rows = await tx.entry.findMany({ where: { handoffId: id }, orderBy: { seq: "asc" } });
  const source = await tx.handoffSource.findUnique({ where: { handoffId: id } });
  if (cut !== null && !rows.some((row) => row.seq === cut)) {
    const range = rows.length > 0 ? `its entries are #${rows[0].seq}–#${rows.at(-1)!.seq}` : "it has no entries";
    throw new Invalid(`handoff ${id} has no entry #${cut}; ${range}`, { cut: [`must be the seq of one of the thread's entries; ${range}`] });
  }
  const entries = rows.filter((row) => cut === null || row.seq <= cut).map(toEntryView);
  return {
    handoff,
    entries,
    cut: cut ?? entries.at(-1)?.seq ?? null,
    source: source ? toSourceRecord(source) : null,
    reuseSourceDocument: true,
  };
}
