"use server";

import { revalidatePath } from "next/cache";
import { createToken, revokeToken } from "@/lib/auth";
import { formStateFromError, formValues, type FormState } from "@/lib/form-state";

/** Token management is operator-only: the guard refuses agent tokens on every page path and every server action. */
export type CreateTokenState = FormState & { token?: string; name?: string };

export async function createTokenAction(_previous: CreateTokenState, formData: FormData): Promise<CreateTokenState> {
  const values = formValues(formData);
  try {
    const { token, view } = await createToken({ name: values.name, role: values.role });
    revalidatePath("/settings/tokens");
    return { status: "success", token, name: view.name, successAt: Date.now() };
  } catch (error) {
    return formStateFromError(error, values);
  }
}

export async function revokeTokenAction(_previous: FormState, formData: FormData): Promise<FormState> {
  const values = formValues(formData);
  try {
    await revokeToken({ name: values.name });
  } catch (error) {
    return formStateFromError(error, values);
  }
  revalidatePath("/settings/tokens");
  return { status: "success", successAt: Date.now() };
}
