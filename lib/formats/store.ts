import "server-only";
import type { GitState } from "../git/types";
import { storedDate, type Sql } from "../sqlite";
import type { QualityWarning, SourceFormat, SourceMetadata, SourceRecord } from "./types";

/**
 * The only SQL that touches `handoff_sources` and `artifacts` (lib/formats owns both). Every
 * function takes the caller's transaction, so an import writes its thread (lib/handoffs/store.ts)
 * and its source in one.
 */
export type SourceRow = {
  handoff_id: string;
  format: string;
  file_name: string | null;
  document: string;
  metadata: string;
  warnings: string;
  parent_thread_id: string | null;
  parent_seq: number | null;
  artifact_id: string | null;
  imported_at: string;
};

export type ArtifactRow = { id: string; handoff_id: string | null; cut_seq: number | null; purpose: string; created_at: string };

function parseJsonColumn<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

export const metadataOf = (row: Pick<SourceRow, "metadata">): SourceMetadata => parseJsonColumn<SourceMetadata>(row.metadata, {});
export const warningsOf = (row: Pick<SourceRow, "warnings">): QualityWarning[] => parseJsonColumn<QualityWarning[]>(row.warnings, []);

export function toSourceRecord(row: SourceRow): SourceRecord {
  return { format: row.format as SourceFormat, document: row.document, metadata: metadataOf(row), artifactId: row.artifact_id };
}

export function sourceOf(tx: Sql, handoffId: string): SourceRow | undefined {
  return tx.statement("SELECT * FROM handoff_sources WHERE handoff_id = ?").get(handoffId) as SourceRow | undefined;
}

export type NewSource = {
  handoffId: string;
  format: SourceFormat;
  fileName: string | null;
  document: string;
  metadata: SourceMetadata;
  warnings: QualityWarning[];
  parentThreadId: string | null;
  parentSeq: number | null;
  artifactId: string | null;
  /** Where the importer's repository stood (lib/git's GitState), when it could tell. */
  git?: GitState | null;
};

export function insertSource(tx: Sql, source: NewSource): void {
  tx.statement(
    `INSERT INTO handoff_sources (handoff_id, format, file_name, document, metadata, warnings, parent_thread_id, parent_seq, artifact_id, imported_at, git)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    source.handoffId,
    source.format,
    source.fileName,
    source.document,
    JSON.stringify(source.metadata),
    JSON.stringify(source.warnings),
    source.parentThreadId,
    source.parentSeq,
    source.artifactId,
    storedDate(),
    source.git ? JSON.stringify(source.git) : null,
  );
}

/** A later checkpoint replaces the document an export gives back. */
export function replaceSourceDocument(tx: Sql, handoffId: string, update: { document: string; fileName: string | null; metadata: SourceMetadata; warnings: QualityWarning[] }): void {
  tx.statement("UPDATE handoff_sources SET document = ?, file_name = ?, metadata = ?, warnings = ? WHERE handoff_id = ?").run(
    update.document,
    update.fileName,
    JSON.stringify(update.metadata),
    JSON.stringify(update.warnings),
    handoffId,
  );
}

/** Records a stored bundle; the same bytes keep their first record, except that a close archive claims it. */
export function recordArtifact(tx: Sql, artifact: { id: string; handoffId: string; cutSeq: number | null; purpose: "export" | "close_archive" }): void {
  tx.statement(
    `INSERT INTO artifacts (id, kind, handoff_id, cut_seq, purpose, created_at) VALUES (@id, 'context_bundle', @handoffId, @cutSeq, @purpose, @at)
     ON CONFLICT (id) DO UPDATE SET purpose = excluded.purpose, handoff_id = excluded.handoff_id, cut_seq = excluded.cut_seq
     WHERE excluded.purpose = 'close_archive'`,
  ).run({ ...artifact, at: storedDate() });
}

/** The bundle kept when the thread was closed, if any. */
export function keptBundleOf(tx: Sql, handoffId: string): string | null {
  const row = tx
    .statement("SELECT id FROM artifacts WHERE handoff_id = ? AND purpose = 'close_archive' ORDER BY created_at DESC LIMIT 1")
    .get(handoffId) as { id: string } | undefined;
  return row?.id ?? null;
}

export function artifactsOf(tx: Sql, handoffId: string): ArtifactRow[] {
  return tx.statement("SELECT id, handoff_id, cut_seq, purpose, created_at FROM artifacts WHERE handoff_id = ? ORDER BY created_at DESC, id ASC").all(handoffId) as ArtifactRow[];
}

/** Threads imported from bundles cut from `handoffId`, oldest first. */
export function childrenOf(tx: Sql, handoffId: string): { id: string; title: string; status: string; seq: number | null }[] {
  return tx
    .statement(
      `SELECT h.id AS id, h.title AS title, h.status AS status, s.parent_seq AS seq
       FROM handoff_sources s JOIN handoffs h ON h.id = s.handoff_id WHERE s.parent_thread_id = ? ORDER BY s.imported_at ASC`,
    )
    .all(handoffId) as { id: string; title: string; status: string; seq: number | null }[];
}
