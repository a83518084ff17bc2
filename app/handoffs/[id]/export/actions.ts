"use server";

import { revalidatePath } from "next/cache";
import { formStateFromError, formValues, type FormState } from "@/lib/form-state";
import { closeHandoffKeepingBundle } from "@/lib/formats/close-handoff-keeping-bundle";
import { exportThread } from "@/lib/formats/export-thread";
import { closeHandoff } from "@/lib/handoffs";

export type ExportBundleState = FormState & { artifactId?: string; cut?: number | null };

function revalidateThread(id: string | undefined) {
  revalidatePath("/");
  if (id) revalidatePath(`/handoffs/${id}`);
}

/** Stores the thread's bundle (cut at its last entry) and answers its artifact id. */
export async function exportBundleAction(_previous: ExportBundleState, formData: FormData): Promise<ExportBundleState> {
  const values = formValues(formData);
  try {
    const exported = await exportThread({ id: values.id, format: "bundle" });
    revalidateThread(values.id);
    return {
      status: "success",
      message: `Bundle stored, cut at #${exported.cut}.`,
      artifactId: exported.artifactId ?? undefined,
      cut: exported.cut,
      successAt: Date.now(),
    };
  } catch (error) {
    return formStateFromError(error, values, { id: "form" });
  }
}

/** Closes the thread; with "keep a context bundle" ticked, the bundle is stored before the entries are wiped. */
export async function closeThreadAction(_previous: FormState, formData: FormData): Promise<FormState> {
  const values = formValues(formData);
  try {
    if (values.keepBundle === "on") {
      const { artifactId } = await closeHandoffKeepingBundle({ id: values.id });
      revalidateThread(values.id);
      return {
        status: "success",
        message: artifactId ? `Handoff closed; its entries were deleted and a context bundle was kept (${artifactId.slice(0, 12)}…).` : "Handoff closed; it had no entries to keep.",
        successAt: Date.now(),
      };
    }
    await closeHandoff({ id: values.id });
    revalidateThread(values.id);
    return { status: "success", message: "Handoff closed; its entries were deleted.", successAt: Date.now() };
  } catch (error) {
    return formStateFromError(error, values, { id: "form" });
  }
}
