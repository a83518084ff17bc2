import "server-only";
import { z } from "zod";
import { read } from "../database";
import { handoffIdSchema, HANDOFF_ID_PATTERN } from "../handoffs/schemas";
import { entriesOf, entryRange, loadHandoff } from "../handoffs/store";
import { parseInput } from "../validation";
import { artifactsOf, childrenOf, metadataOf, sourceOf, warningsOf } from "./sources";
import type { QualityWarning, SourceFormat, SourceMetadata } from "./types";

/** `cutNumber`: the cut entry's number (#4) while the thread still has it. */
export type ArtifactView = { id: string; cutSeq: number | null; cutNumber: number | null; purpose: "export" | "close_archive"; createdAt: string };
export type LinkedThread = { id: string; title: string; status: string; seq: number | null };

export type Provenance = {
  status: string;
  entryCount: number;
  source: {
    format: SourceFormat;
    fileName: string | null;
    metadata: SourceMetadata;
    warnings: QualityWarning[];
    importedAt: string;
    artifactId: string | null;
    /** The bundle's source cut as written; `parent` says whether it is a thread here. */
    parentThreadId: string | null;
    parentSeq: number | null;
  } | null;
  /** `number`: the cut entry's number in the parent (#4), while the parent still has it. */
  parent: (LinkedThread & { number: number | null }) | null;
  /** Threads imported from bundles cut from this one. */
  children: LinkedThread[];
  /** Bundles exported from this thread, newest first. */
  artifacts: ArtifactView[];
  /** The bundle kept when it was closed. */
  keptBundle: ArtifactView | null;
};

export type GetProvenanceOptions = { id: string };

/** Where a thread came from and what was made of it: source, parent, children and bundles. */
export async function getProvenance(options: GetProvenanceOptions): Promise<Provenance> {
  const { id } = parseInput(z.object({ id: handoffIdSchema }), options);
  return read(async (tx) => {
    const handoff = await loadHandoff(tx, id);
    const source = await sourceOf(tx, id);
    const parentRow =
      source?.parent_thread_id && HANDOFF_ID_PATTERN.test(source.parent_thread_id)
        ? await tx.get<Omit<LinkedThread, "seq">>("SELECT id, title, status FROM handoffs WHERE id = ?", [source.parent_thread_id])
        : undefined;
    const parentSeq = source?.parent_seq ?? null;
    const [cutEntry] = parentRow && parentSeq !== null ? await entriesOf(tx, parentRow.id, { gt: parentSeq - 1, lt: parentSeq + 1 }, "asc", 1) : [];
    const artifacts = (await artifactsOf(tx, id)).map((row) => ({
      id: row.id,
      cutSeq: row.cut_seq,
      cutNumber: row.cut_number,
      purpose: row.purpose as ArtifactView["purpose"],
      createdAt: new Date(row.created_at).toISOString(),
    }));
    return {
      status: handoff.status,
      entryCount: (await entryRange(tx, id, {})).count,
      source: source
        ? {
            format: source.format as SourceFormat,
            fileName: source.file_name,
            metadata: metadataOf(source),
            warnings: warningsOf(source),
            importedAt: new Date(source.imported_at).toISOString(),
            artifactId: source.artifact_id,
            parentThreadId: source.parent_thread_id,
            parentSeq: source.parent_seq,
          }
        : null,
      parent: parentRow ? { ...parentRow, seq: parentSeq, number: cutEntry?.number ?? null } : null,
      children: await childrenOf(tx, id),
      artifacts,
      keptBundle: artifacts.find((artifact) => artifact.purpose === "close_archive") ?? null,
    };
  });
}
