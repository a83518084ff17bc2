import "server-only";
import { cache } from "react";
import { currentCaller, isOperator } from "@/lib/caller";
import { attentionOfCaller } from "@/lib/dashboard/attention-marks";
import type { Attention } from "@/lib/dashboard/find-attention";

/**
 * What needs the operator, with their own Done and Snooze applied, read once per request however
 * many parts of the page ask (the navigation's count, the desk). Nobody else sees it: the sign-in page gets null.
 */
export const attentionOfRequest = cache(async (): Promise<Attention | null> => (isOperator(currentCaller()) ? attentionOfCaller() : null));
