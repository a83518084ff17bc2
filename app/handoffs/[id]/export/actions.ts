"use server";

import { formStateFromError, formValues, type FormState } from "@/lib/form-state";
import { exportHandoff } from "@/lib/formats/export-handoff";
import { revalidateThread } from "../../revalidate";

export type ExportBundleState = FormState & { artifactId?: string; cut?: number | null };

/** Stores the thread's bundle (cut at its last entry) and answers its artifact id. */
export async function exportBundleAction(_previous: ExportBundleState, formData: FormData): Promise<ExportBundleState> {
  const values = formValues(formData);
  try {
    const exported = await exportHandoff({ id: values.id, format: "bundle" });
    revalidateThread(values.id);
    return {
      status: "success",
      message: `Bundle kept, cut at entry #${exported.cutNumber}.`,
      artifactId: exported.artifactId ?? undefined,
      cut: exported.cut,
      successAt: Date.now(),
    };
  } catch (error) {
    return formStateFromError(error, values, { id: "form" });
  }
}
