"use server";

import { revalidatePath } from "next/cache";
import { markAttention, unmarkAttention } from "@/lib/dashboard/attention-marks";
import { formStateFromError, formValues, type FormState } from "@/lib/form-state";

/** Done or Snooze on a row of "Needs you now" (the form's `kind`, `sides` as "chat code", `until` for a timed snooze). */
export async function markAttentionAction(_previous: FormState, formData: FormData): Promise<FormState> {
  const values = formValues(formData);
  try {
    await markAttention({
      handoffId: values.handoffId,
      sides: values.sides,
      kind: values.kind,
      throughNumber: values.throughNumber,
      until: values.until || undefined,
    });
  } catch (error) {
    return formStateFromError(error, values);
  }
  revalidatePath("/");
  return { status: "success", message: values.kind === "done" ? "Marked done." : "Snoozed.", successAt: Date.now(), values: { handoffId: values.handoffId } };
}

/** Undo: the row shows everything again. */
export async function unmarkAttentionAction(_previous: FormState, formData: FormData): Promise<FormState> {
  const values = formValues(formData);
  try {
    await unmarkAttention({ handoffId: values.handoffId });
  } catch (error) {
    return formStateFromError(error, values);
  }
  revalidatePath("/");
  return { status: "success", message: "Back in the list.", successAt: Date.now(), values: { handoffId: values.handoffId } };
}
