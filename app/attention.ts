import "server-only";
import { cache } from "react";
import { currentCaller, isOperator } from "@/lib/caller";
import { attentionForCaller } from "@/lib/dashboard/attention-marks";
import { findAttention, type Attention } from "@/lib/dashboard/find-attention";

/**
 * What needs the operator, with their own Done and Snooze applied, read once per request however
 * many parts of the page ask (the navigation, the tab title, the desk). Nobody else sees it: the sign-in page gets null.
 */
export const attentionOfRequest = cache(async (): Promise<Attention | null> => (isOperator(currentCaller()) ? attentionForCaller(await findAttention()) : null));

/** What every tab title starts with: the count of what needs the operator, e.g. "(3) ". */
export async function attentionTitlePrefix(): Promise<string> {
  const count = (await attentionOfRequest())?.count ?? 0;
  return count > 0 ? `(${count}) ` : "";
}
