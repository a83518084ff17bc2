"use server";

import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { AUTHORIZATION_PARAM_NAMES, approveAuthorization, denyAuthorization, oauthUrls, publicBaseUrl, type AuthorizationParams } from "@/lib/oauth";
import { formStateFromError, formValues, type FormState } from "@/lib/form-state";

/**
 * The consent page's decision. A server action, so the guard's Origin and Sec-Fetch-Site checks
 * and its operator-only rule protect it; the hidden fields are re-checked as any input is.
 */
export async function decideAuthorizationAction(_previous: FormState, formData: FormData): Promise<FormState> {
  const values = formValues(formData);
  const params: AuthorizationParams = {};
  for (const name of AUTHORIZATION_PARAM_NAMES) if (values[name] !== undefined) params[name] = values[name];
  const { resource } = oauthUrls(publicBaseUrl((await headers()).get("host")));
  let target: string;
  try {
    target = values.decision === "approve" ? await approveAuthorization({ ...params, act_as: values.act_as }, resource) : await denyAuthorization(params, resource);
  } catch (error) {
    return formStateFromError(error, values);
  }
  redirect(target);
}
