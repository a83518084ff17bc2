import "server-only";
import { read } from "../database";
import { Invalid, isDomainError } from "../errors";
import { HANDOFF_ID_PATTERN } from "../handoffs/schemas";
import { describeFieldErrors } from "../validation";
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
      parent: { threadId: string; seq: number; title: string | null } | null;
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
    const parentRow =
      parent && HANDOFF_ID_PATTERN.test(parent.threadId)
        ? await read((tx) => tx.get<{ title: string }>("SELECT title FROM handoffs WHERE id = ?", [parent.threadId]))
        : undefined;
    return {
      ok: true,
      format: plan.format,
      detectedBecause: plan.detectedBecause,
      title: plan.draft.title,
      entries: plan.draft.entries,
      metadata: plan.draft.metadata,
      warnings: plan.draft.warnings,
      parent: parent ? { ...parent, title: parentRow?.title ?? null } : null,
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
