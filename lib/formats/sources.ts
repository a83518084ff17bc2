import "server-only";
import { lockRows, storedDate, type Tx } from "../database";
import type { GitState } from "../git/types";
import type { QualityWarning, SourceFormat, SourceMetadata, SourceRecord } from "./types";

/**
 * The SQL of `handoff_sources` and `artifacts` (lib/formats owns both), with redact-stored.ts's
 * rewrite for the sweep of stored secrets and blobs.ts's artifact reads. Every
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

/** `cut_number`: the number of the entry at `cut_seq` while the thread still has it (#4). */
export type ArtifactRow = { id: string; handoff_id: string | null; cut_seq: number | null; cut_number: number | null; purpose: string; created_at: string };

const SOURCE_COLUMNS = "handoff_id, format, file_name, document, metadata, warnings, parent_thread_id, parent_seq, artifact_id, imported_at";

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

/** A thread's source; `forUpdate` when the caller rewrites it from what it reads (a checkpoint's count). */
export async function sourceOf(tx: Tx, handoffId: string, { forUpdate = false } = {}): Promise<SourceRow | undefined> {
  return tx.get<SourceRow>(`SELECT ${SOURCE_COLUMNS} FROM handoff_sources WHERE handoff_id = ?${forUpdate ? lockRows(tx) : ""}`, [handoffId]);
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

export async function insertSource(tx: Tx, source: NewSource): Promise<void> {
  await tx.run(
    `INSERT INTO handoff_sources (handoff_id, format, file_name, document, metadata, warnings, parent_thread_id, parent_seq, artifact_id, imported_at, git)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
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
    ],
  );
}

/** The handoff.yaml document of `project`'s most recently active checkpoint thread, with its title. */
export async function newestCheckpointOf(tx: Tx, project: string): Promise<{ handoff_id: string; title: string; document: string } | undefined> {
  return tx.get(
    `SELECT s.handoff_id, h.title, s.document FROM handoff_sources s JOIN handoffs h ON h.id = s.handoff_id
      WHERE s.format = 'handoff_yaml' AND h.project = ? ORDER BY h.updated_at DESC, h.id LIMIT 1`,
    [project],
  );
}

/** A later checkpoint replaces the document an export gives back. */
export async function replaceSourceDocument(
  tx: Tx,
  handoffId: string,
  update: { document: string; fileName: string | null; metadata: SourceMetadata; warnings: QualityWarning[] },
): Promise<void> {
  await tx.run("UPDATE handoff_sources SET document = ?, file_name = ?, metadata = ?, warnings = ? WHERE handoff_id = ?", [
    update.document,
    update.fileName,
    JSON.stringify(update.metadata),
    JSON.stringify(update.warnings),
    handoffId,
  ]);
}

/**
 * Records a stored bundle with its bytes (`content`, so every instance of a team server can read
 * it). The same bytes keep their first record, except that a close archive claims it; a record
 * written before the content column existed gets its content.
 */
export async function recordArtifact(
  tx: Tx,
  artifact: { id: string; handoffId: string; cutSeq: number | null; purpose: "export" | "close_archive"; content: string },
): Promise<void> {
  const claims = "excluded.purpose = 'close_archive'";
  await tx.run(
    `INSERT INTO artifacts (id, kind, handoff_id, cut_seq, purpose, content, created_at) VALUES (?, 'context_bundle', ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET
       purpose = CASE WHEN ${claims} THEN excluded.purpose ELSE artifacts.purpose END,
       handoff_id = CASE WHEN ${claims} THEN excluded.handoff_id ELSE artifacts.handoff_id END,
       cut_seq = CASE WHEN ${claims} THEN excluded.cut_seq ELSE artifacts.cut_seq END,
       content = excluded.content
     WHERE ${claims} OR artifacts.content IS NULL`,
    [artifact.id, artifact.handoffId, artifact.cutSeq, artifact.purpose, artifact.content, storedDate()],
  );
}

/**
 * The text stored for an artifact id: a recorded bundle's content, else the document of a bundle
 * imported under that id (an import keeps the bundle as its source document; the artifact is its
 * canonical form, which the caller derives and checks). Null when the database has neither.
 */
export async function storedArtifactIn(tx: Tx, artifactId: string): Promise<{ content: string } | { importedDocument: string } | null> {
  const recorded = await tx.get<{ content: string | null }>("SELECT content FROM artifacts WHERE id = ?", [artifactId]);
  if (recorded?.content != null) return { content: recorded.content };
  const imported = await tx.get<{ document: string }>("SELECT document FROM handoff_sources WHERE artifact_id = ? AND format = 'bundle' LIMIT 1", [artifactId]);
  return imported ? { importedDocument: imported.document } : null;
}

/** The bundle kept when the thread was closed, if any. */
export async function keptBundleOf(tx: Tx, handoffId: string): Promise<string | null> {
  const row = await tx.get<{ id: string }>("SELECT id FROM artifacts WHERE handoff_id = ? AND purpose = 'close_archive' ORDER BY created_at DESC LIMIT 1", [handoffId]);
  return row?.id ?? null;
}

export async function artifactsOf(tx: Tx, handoffId: string): Promise<ArtifactRow[]> {
  return tx.all<ArtifactRow>(
    `SELECT a.id, a.handoff_id, a.cut_seq, e.number AS cut_number, a.purpose, a.created_at
     FROM artifacts a LEFT JOIN handoff_entries e ON e.handoff_id = a.handoff_id AND e.seq = a.cut_seq
     WHERE a.handoff_id = ? ORDER BY a.created_at DESC, a.id ASC`,
    [handoffId],
  );
}

/** Threads imported from bundles cut from `handoffId`, oldest first. */
export async function childrenOf(tx: Tx, handoffId: string): Promise<{ id: string; title: string; status: string; seq: number | null }[]> {
  return tx.all<{ id: string; title: string; status: string; seq: number | null }>(
    `SELECT h.id AS id, h.title AS title, h.status AS status, s.parent_seq AS seq
     FROM handoff_sources s JOIN handoffs h ON h.id = s.handoff_id WHERE s.parent_thread_id = ? ORDER BY s.imported_at ASC, h.id ASC`,
    [handoffId],
  );
}
