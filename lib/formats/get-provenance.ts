import { z } from "zod";
import { readTransaction } from "../db";
import { handoffIdSchema, HANDOFF_ID_PATTERN } from "../handoffs";
import { loadHandoff } from "../handoffs/load";
import { parseInput } from "../validation";
import { metadataOf, warningsOf } from "./load-snapshot";
import type { QualityWarning, SourceFormat, SourceMetadata } from "./types";

export type ArtifactView = { id: string; cutSeq: number | null; purpose: "export" | "close_archive"; createdAt: string };
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
  parent: LinkedThread | null;
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
  return readTransaction(async (tx) => {
    const handoff = await loadHandoff(tx, id);
    const [entryCount, source, childRows, artifactRows] = await Promise.all([
      tx.entry.count({ where: { handoffId: id } }),
      tx.handoffSource.findUnique({ where: { handoffId: id } }),
      tx.handoffSource.findMany({
        where: { parentThreadId: id },
        orderBy: { importedAt: "asc" },
        include: { handoff: { select: { id: true, title: true, status: true } } },
      }),
      tx.artifact.findMany({ where: { handoffId: id }, orderBy: [{ createdAt: "desc" }, { id: "asc" }] }),
    ]);
    const parentRow =
      source?.parentThreadId && HANDOFF_ID_PATTERN.test(source.parentThreadId)
        ? await tx.handoff.findUnique({ where: { id: source.parentThreadId }, select: { id: true, title: true, status: true } })
        : null;
    const artifacts = artifactRows.map((row) => ({
      id: row.id,
      cutSeq: row.cutSeq,
      purpose: row.purpose as ArtifactView["purpose"],
      createdAt: row.createdAt.toISOString(),
    }));
    return {
      status: handoff.status,
      entryCount,
      source: source && {
        format: source.format as SourceFormat,
        fileName: source.fileName,
        metadata: metadataOf(source),
        warnings: warningsOf(source),
        importedAt: source.importedAt.toISOString(),
        artifactId: source.artifactId,
        parentThreadId: source.parentThreadId,
        parentSeq: source.parentSeq,
      },
      parent: parentRow && { ...parentRow, seq: source?.parentSeq ?? null },
      children: childRows.map((row) => ({ ...row.handoff, seq: row.parentSeq })),
      artifacts,
      keptBundle: artifacts.find((artifact) => artifact.purpose === "close_archive") ?? null,
    };
  });
}
