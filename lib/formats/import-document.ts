import { writeTransaction, type Tx } from "../db";
import { HANDOFF_ID_PATTERN, type EntryView, type HandoffView } from "../handoffs";
import { writeBlob } from "./artifact-store";
import { createThreadIn } from "./create-thread-in";
import { planImport, type ImportDocumentOptions, type ImportPlan } from "./plan-import";
import type { QualityWarning, SourceFormat } from "./types";

export type ImportedHandoff = {
  handoff: HandoffView;
  entries: EntryView[];
  format: SourceFormat;
  warnings: QualityWarning[];
  /** The parent thread when the bundle's source cut is a thread of this Baton. */
  parentId: string | null;
  /** A bundle's own blob in the artifact store. */
  artifactId: string | null;
};

const MAX_INT32 = 2_147_483_647;

/** Creates the thread and its source row for a plan, inside the caller's transaction. */
export async function importPlanIn(tx: Tx, plan: ImportPlan, artifactId: string | null, extra: { checkpoints?: number } = {}): Promise<ImportedHandoff> {
  const at = new Date();
  const { handoff, entries } = await createThreadIn(tx, { title: plan.draft.title, project: plan.project, entries: plan.draft.entries, at });
  const parent = plan.draft.parent;
  await tx.handoffSource.create({
    data: {
      handoffId: handoff.id,
      format: plan.format,
      fileName: plan.fileName,
      document: plan.text,
      metadata: JSON.stringify({ ...plan.draft.metadata, ...extra, importedThroughSeq: entries.at(-1)?.seq ?? 0 }),
      warnings: JSON.stringify(plan.draft.warnings),
      parentThreadId: parent?.threadId ?? null,
      parentSeq: parent && parent.seq <= MAX_INT32 ? parent.seq : null,
      artifactId,
      importedAt: at,
    },
  });
  const parentId =
    parent && HANDOFF_ID_PATTERN.test(parent.threadId) && (await tx.handoff.findUnique({ where: { id: parent.threadId }, select: { id: true } }))
      ? parent.threadId
      : null;
  return { handoff, entries, format: plan.format, warnings: plan.draft.warnings, parentId, artifactId };
}

/**
 * Imports a rip context bundle, handoff.json or handoff.yaml (pasted text, a file's text or a
 * stored bundle's artifact id) as a new thread, with the document kept beside it. Bad input is
 * refused with every field path before anything is written. A bundle becomes a child of its
 * source cut and is stored content-addressed.
 */
export async function importDocument(options: ImportDocumentOptions): Promise<ImportedHandoff> {
  const plan = planImport(options);
  const artifactId = plan.canonicalBundle === null ? null : writeBlob(Buffer.from(plan.canonicalBundle, "utf8"));
  return writeTransaction((tx) => importPlanIn(tx, plan, artifactId));
}
