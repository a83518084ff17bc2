"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { NotFound } from "@/lib/errors";
import { formStateFromError, formValues, type FormState } from "@/lib/form-state";
import { addEntry, createHandoff, extractHandoffId, getHandoff, HANDOFF_ID_SHAPE, markRead } from "@/lib/handoffs";
import { closeHandoff } from "@/lib/formats";
import { redactionLines } from "@/lib/secrets";
import { revalidateThread } from "./revalidate";

// Domain field names → the form fields that show their errors.
const FIELD_NAMES = { asClient: "asClient", id: "form" };

/** Opens what the operator pasted: a bare ID, a quoted one, or a dashboard URL. */
export async function openHandoffAction(_previous: FormState, formData: FormData): Promise<FormState> {
  const values = formValues(formData);
  const pasted = values.ref ?? "";
  if (pasted.trim() === "") {
    return { status: "error", fieldErrors: { ref: ["Paste a handoff ID, e.g. hof_V1StGXR8_Z5jdHi6B-myT."] }, values };
  }
  const id = extractHandoffId(pasted);
  if (!id) {
    return {
      status: "error",
      fieldErrors: {
        ref: [`That is not a handoff ID. IDs look like ${HANDOFF_ID_SHAPE} (e.g. hof_V1StGXR8_Z5jdHi6B-myT).`],
      },
      values,
    };
  }
  try {
    await getHandoff({ id });
  } catch (error) {
    if (error instanceof NotFound) {
      return { status: "error", fieldErrors: { ref: [`No handoff ${id} here. Check that the whole ID was copied.`] }, values };
    }
    throw error;
  }
  redirect(`/handoffs/${id}`);
}

export async function createHandoffAction(_previous: FormState, formData: FormData): Promise<FormState> {
  const values = formValues(formData);
  let id: string;
  let side: string;
  let redacted: number;
  try {
    const created = await createHandoff({
      title: values.title,
      content: values.content,
      project: values.project,
      asClient: values.asClient,
    });
    id = created.handoff.id;
    side = created.entries[0].fromClient;
    redacted = created.redactions.length;
  } catch (error) {
    return formStateFromError(error, values, FIELD_NAMES);
  }
  revalidatePath("/");
  redirect(`/handoffs/${id}?created=1&as=${side}${redacted > 0 ? `&redacted=${redacted}` : ""}`);
}

export async function addEntryAction(_previous: FormState, formData: FormData): Promise<FormState> {
  const values = formValues(formData);
  try {
    const { entry, redactions } = await addEntry({
      id: values.id,
      type: values.type,
      content: values.content,
      answers: values.answers,
      asClient: values.asClient,
    });
    revalidateThread(values.id);
    return {
      status: "success",
      message: entry.answers === null ? `Posted #${entry.number}, a ${entry.type}, as ${entry.fromClient}.` : `Posted #${entry.number}, answering #${entry.answers}, as ${entry.fromClient}.`,
      values: { type: values.type, asClient: values.asClient },
      successAt: Date.now(),
      notices: redactionLines(redactions),
    };
  } catch (error) {
    return formStateFromError(error, values, FIELD_NAMES);
  }
}

export async function markReadAction(_previous: FormState, formData: FormData): Promise<FormState> {
  const values = formValues(formData);
  try {
    await markRead({ id: values.id, asClient: values.asClient });
    revalidateThread(values.id);
    return { status: "success", message: `Marked every entry read for ${values.asClient}.`, successAt: Date.now() };
  } catch (error) {
    return formStateFromError(error, values, FIELD_NAMES);
  }
}

/** Closes the thread; with "keep a context bundle" ticked, the bundle is stored before the entries are wiped. */
export async function closeHandoffAction(_previous: FormState, formData: FormData): Promise<FormState> {
  const values = formValues(formData);
  try {
    const archive = values.keepBundle === "on";
    const { artifactId } = await closeHandoff({ id: values.id, archive });
    revalidateThread(values.id);
    const kept = artifactId
      ? `Handoff closed; its entries were deleted and a context bundle was kept (${artifactId.slice(0, 12)}…).`
      : "Handoff closed; it had no entries to keep.";
    return { status: "success", message: archive ? kept : "Handoff closed; its entries were deleted.", successAt: Date.now() };
  } catch (error) {
    return formStateFromError(error, values, FIELD_NAMES);
  }
}
