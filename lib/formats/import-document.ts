import "server-only";
import { MAX_INT4, write, type Tx } from "../database";
import { gitStateForWrite, reportedState } from "../git/read-state";
import type { GitState } from "../git/types";
import { cleanHandoffTexts, type CleanHandoffTexts } from "../handoffs/clean-texts";
import { createHandoffIn } from "../handoffs/store";
import type { EntryView, HandoffView } from "../handoffs/views";
import type { Redaction } from "../secrets";
import { artifactIdOf, mirrorBlob } from "./blobs";
import { linkedParentIn } from "./parent-cut";
import { planImport, type ImportDocumentOptions, type ImportPlan } from "./plan-import";
import { insertSource } from "./sources";
import type { QualityWarning, SourceFormat } from "./types";
import { namedFolderSchema } from "../caller";
import { parseInput } from "../validation";
import { z } from "zod";

export type ImportedHandoff = {
  handoff: HandoffView;
  entries: EntryView[];
  format: SourceFormat;
  warnings: QualityWarning[];
  /** The parent thread when the bundle's source cut is a thread of this Baton. */
  parentId: string | null;
  /** A bundle's own blob in the artifact store. */
  artifactId: string | null;
  /** Secrets replaced before anything was stored (field `text`: positions in the document). */
  redactions: Redaction[];
};

/** A plan's title and entries through the secrets check (lib/handoffs/store.ts), for importPlanIn. */
export const cleanedTextsOf = (plan: ImportPlan): CleanHandoffTexts =>
  cleanHandoffTexts(
    plan.draft.title,
    plan.draft.entries.map(({ fromClient, type, content }) => ({ fromClient, type, content })),
  );

/** Creates the thread (through lib/handoffs) and its source row for a plan, inside the caller's transaction. */
export async function importPlanIn(
  tx: Tx,
  plan: ImportPlan,
  texts: CleanHandoffTexts,
  artifactId: string | null,
  extra: { checkpoints?: number; importer?: GitState | null } = {},
): Promise<ImportedHandoff> {
  const git = handoffGitOf(plan, extra.importer ?? null);
  const { importer, ...counts } = extra;
  const parent = plan.draft.parent;
  // Checked before anything is written: a cut naming one of ours that it never had is refused.
  const linked = await linkedParentIn(tx, parent);
  const created = await createHandoffIn(tx, { texts, project: plan.project, git });
  await insertSource(tx, {
    handoffId: created.handoff.id,
    format: plan.format,
    fileName: plan.fileName,
    document: plan.text,
    metadata: { ...plan.draft.metadata, ...counts, importedThroughSeq: created.entries.at(-1)?.seq ?? 0 },
    warnings: plan.draft.warnings,
    parentThreadId: parent?.threadId ?? null,
    parentSeq: parent && parent.seq <= MAX_INT4 ? parent.seq : null,
    artifactId,
    git: importer,
  });
  return { ...created, format: plan.format, warnings: plan.draft.warnings, parentId: linked?.id ?? null, artifactId, redactions: [...plan.redactions, ...created.redactions] };
}

/**
 * Where the imported handoff stands in git: the document's branch and files (handoff.yaml and
 * handoff.json carry them), on the importer's repository state when it is known.
 */
function handoffGitOf(plan: ImportPlan, importer: GitState | null): GitState | null {
  const reported = reportedState({ branch: plan.draft.metadata.branch, files: plan.draft.metadata.files });
  if (!importer) return reported;
  return { ...importer, branch: reported?.branch ?? importer.branch, ...(reported?.files ? { files: reported.files } : {}) };
}

/** Where an import runs from: the importer's folder, named only by a caller on this machine. */
const importerInput = z.object({ repoPath: namedFolderSchema.optional() });

/**
 * Imports a rip context bundle, handoff.json or handoff.yaml (pasted text, a file's text or a
 * stored bundle's artifact id) as a new thread, with the document kept beside it. Bad input is
 * refused with every field path before anything is written. A bundle becomes a child of its
 * source cut; its canonical bytes are its artifact (readable from the kept document, and copied
 * to the artifact folder).
 */
export async function importDocument(options: ImportDocumentOptions, where: { repoPath?: string } = {}): Promise<ImportedHandoff> {
  const plan = await planImport(options);
  const { repoPath } = parseInput(importerInput, where);
  const artifactId = plan.canonicalBundle === null ? null : artifactIdOf(Buffer.from(plan.canonicalBundle, "utf8"));
  // The importer's folder (the CLI's current folder): an absolute path on this machine, else nothing.
  const importer = repoPath ? await gitStateForWrite(repoPath) : null;
  const texts = cleanedTextsOf(plan);
  const imported = await write((tx) => importPlanIn(tx, plan, texts, artifactId, { importer }));
  if (plan.canonicalBundle !== null) mirrorBlob(plan.canonicalBundle);
  return imported;
}
