import "server-only";
import { read } from "../database";
import { Invalid, isDomainError } from "../errors";
import { describeFieldErrors } from "../validation";
import { linkedParentIn } from "./parent-cut";
import { planImport, type ImportDocumentOptions } from "./plan-import";
import type { DraftEntry, QualityWarning, SourceFormat, SourceMetadata } from "./types";

export type ImportPreview =
  | {
      ok: true;
      format: SourceFormat;
      detectedBecause: string;
      title: string;
      entries: DraftEntry[];
      metadata: SourceMetadata;
      warnings: QualityWarning[];
      /** `number`: the cut entry's number (#4) when the parent is a thread of this Baton with its entries. */
      parent: { threadId: string; seq: number; title: string | null; number: number | null } | null;
    }
  | { ok: false; message: string; fieldErrors: Record<string, string[]> };

/**
 * What importing would create, without storing anything: the thread and its warnings, or every
 * validation error by field path. Bad input never throws; it is the answer.
 */
export async function previewImport(options: ImportDocumentOptions): Promise<ImportPreview> {
  try {
    const plan = await planImport(options);
    const parent = plan.draft.parent;
    const linked = await read((tx) => linkedParentIn(tx, parent));
    return {
      ok: true,
      format: plan.format,
      detectedBecause: plan.detectedBecause,
      title: plan.draft.title,
      entries: plan.draft.entries,
      metadata: plan.draft.metadata,
      warnings: plan.draft.warnings,
      parent: parent ? { threadId: parent.threadId, seq: parent.seq, title: linked?.title ?? null, number: linked?.number ?? null } : null,
    };
  } catch (error) {
    if (!isDomainError(error)) throw error;
    const fieldErrors = error instanceof Invalid ? error.fieldErrors : {};
    return {
      ok: false,
      message: Object.keys(fieldErrors).length > 0 ? describeFieldErrors(fieldErrors) : error.message,
      fieldErrors: Object.keys(fieldErrors).length > 0 ? fieldErrors : { "(document)": [error.message] },
    };
  }
}
