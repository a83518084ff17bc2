"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import type { FormState } from "@/lib/form-state";
import { historyKeys, threadKeys } from "@/lib/queries";

/**
 * After a successful write from this page, refetch this thread (both sides' views) and the
 * history at once, without waiting for the change stream to echo the write back.
 */
export function useRefreshAfterSuccess(state: FormState, handoffId: string) {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (state.status !== "success") return;
    void queryClient.invalidateQueries({ queryKey: threadKeys(handoffId) });
    void queryClient.invalidateQueries({ queryKey: historyKeys });
  }, [state.status, state.successAt, handoffId, queryClient]);
}
