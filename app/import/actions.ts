"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { Invalid, isDomainError } from "@/lib/errors";
import { formValues, typedText, type FormState } from "@/lib/form-state";
import { importDocument } from "@/lib/formats/import-document";
import type { ImportDocumentOptions } from "@/lib/formats/plan-import";
import { previewImport, type ImportPreview } from "@/lib/formats/preview-import";

/**
 * The preview for what is in the form; never stores anything. It reads the text as the import
 * will (formValues); what the fields may hold is the domain's to check, as for the import.
 */
export async function previewImportAction(input: ImportDocumentOptions): Promise<ImportPreview> {
  if (typeof input !== "object" || input === null) return previewImport(input);
  return previewImport(typeof input.text === "string" ? { ...input, text: typedText(input.text) } : input);
}

function importFailure(error: unknown, values: Record<string, string>): FormState {
  if (!isDomainError(error)) throw error;
  const fieldErrors = error instanceof Invalid && Object.keys(error.fieldErrors).length > 0 ? error.fieldErrors : { "(document)": [error.message] };
  return { status: "error", message: "Nothing was imported: fix the errors below.", fieldErrors, values };
}

/** Imports the pasted or dropped document (or a stored bundle) and opens the new thread. */
export async function importAction(_previous: FormState, formData: FormData): Promise<FormState> {
  const values = formValues(formData);
  let id: string;
  try {
    const imported = await importDocument({
      text: values.artifactId?.trim() ? undefined : values.text,
      artifactId: values.artifactId,
      fileName: values.fileName,
      format: values.format,
      project: values.project,
    });
    id = imported.handoff.id;
  } catch (error) {
    return importFailure(error, values);
  }
  revalidatePath("/");
  redirect(`/handoffs/${id}`);
}

/** "Continue in a new thread" from a stored bundle (e.g. the one kept when a thread closed), with the title and project tag the operator gave. */
export async function importArtifactAction(_previous: FormState, formData: FormData): Promise<FormState> {
  const values = formValues(formData);
  let id: string;
  try {
    id = (await importDocument({ artifactId: values.artifactId, format: "bundle", title: values.title, project: values.project })).handoff.id;
  } catch (error) {
    return importFailure(error, values);
  }
  revalidatePath("/");
  if (values.parentId) revalidatePath(`/handoffs/${values.parentId}`);
  redirect(`/handoffs/${id}`);
}
