"use server";

import { revalidatePath } from "next/cache";
import { formStateFromError, formValues, type FormState } from "@/lib/form-state";
import { createWebhook, pauseWebhook, redeliver, removeWebhook, resumeWebhook } from "@/lib/webhooks";

/** `chosen`: the boxes ticked, so a refused form comes back with them still ticked (FormState's `values` hold one value a name). */
export type CreateWebhookState = FormState & { secret?: string; webhookId?: number; chosen?: { events: string[]; types: string[] } };

export async function createWebhookAction(_previous: CreateWebhookState, formData: FormData): Promise<CreateWebhookState> {
  const values = formValues(formData);
  const events = formData.getAll("events").filter((value): value is string => typeof value === "string");
  const types = formData.getAll("types").filter((value): value is string => typeof value === "string");
  try {
    const { webhook, secret } = await createWebhook({ url: values.url, events, types });
    revalidatePath("/settings/webhooks");
    return { status: "success", secret, webhookId: webhook.id, successAt: Date.now() };
  } catch (error) {
    return { ...formStateFromError(error, values), chosen: { events, types } };
  }
}

/** One action per button; each takes the id from a hidden field. */
function byId(operation: (input: { id: string }) => unknown) {
  return async (_previous: FormState, formData: FormData): Promise<FormState> => {
    const values = formValues(formData);
    try {
      await operation({ id: values.id });
    } catch (error) {
      return formStateFromError(error, values);
    }
    revalidatePath("/settings/webhooks");
    return { status: "success", successAt: Date.now() };
  };
}

export async function removeWebhookAction(previous: FormState, formData: FormData): Promise<FormState> {
  return byId(removeWebhook)(previous, formData);
}

export async function pauseWebhookAction(previous: FormState, formData: FormData): Promise<FormState> {
  return byId(pauseWebhook)(previous, formData);
}

export async function resumeWebhookAction(previous: FormState, formData: FormData): Promise<FormState> {
  return byId(resumeWebhook)(previous, formData);
}

export async function redeliverAction(previous: FormState, formData: FormData): Promise<FormState> {
  return byId(redeliver)(previous, formData);
}
