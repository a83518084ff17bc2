"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { registerAgent, retryDelivery, triggerHandoff, withoutEmptySections } from "@/lib/agents";
import { formStateFromError, formValues, idleFormState, type FormState } from "@/lib/form-state";

/** Registers an agent from the dashboard and opens its page. */
export async function registerAgentAction(_previous: FormState, formData: FormData): Promise<FormState> {
  const values = formValues(formData);
  let id: number;
  try {
    const agent = await registerAgent({
      personaSlug: values.personaSlug ?? "",
      name: values.name,
      project: values.project,
      sessionId: values.sessionId,
      tmuxTarget: values.tmuxTarget,
    });
    id = agent.id;
  } catch (error) {
    return formStateFromError(error, values);
  }
  revalidatePath("/agents");
  redirect(`/agents/${id}?registered=1`);
}

/** The operator's "End shift": a shift_end handoff to a new successor. */
export async function endShiftAction(_previous: FormState, formData: FormData): Promise<FormState> {
  const values = formValues(formData);
  let agentId: number;
  try {
    const handoff = await triggerHandoff({
      agentId: values.agentId ?? "",
      reason: "shift_end",
      // The template's sections left empty are not part of what the successor reads.
      document: withoutEmptySections(values.document ?? ""),
      successor: { tmuxTarget: values.tmuxTarget },
    });
    agentId = handoff.agent.id;
  } catch (error) {
    return formStateFromError(error, values, { "successor.tmuxTarget": "tmuxTarget" });
  }
  revalidatePath("/agents");
  revalidatePath(`/agents/${agentId}`);
  redirect(`/agents/${agentId}?handedOff=1`);
}

/** *Retry delivery*: the injection prompt typed again into the successor's tmux pane. */
export async function retryDeliveryAction(_previous: FormState, formData: FormData): Promise<FormState> {
  const values = formValues(formData);
  let agentId: number;
  try {
    agentId = (await retryDelivery({ agentId: values.agentId ?? "", tmuxTarget: values.tmuxTarget })).agentId;
  } catch (error) {
    return formStateFromError(error, values);
  }
  revalidatePath(`/agents/${agentId}`);
  revalidatePath("/");
  return idleFormState;
}
