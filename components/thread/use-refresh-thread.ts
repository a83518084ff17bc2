"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import type { FormState } from "@/lib/form-state";

/** After a successful write, refetch this thread (both sides' views) and the history at once. */
export function useRefreshAfterSuccess(state: FormState, handoffId: string) {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (state.status !== "success") return;
    void queryClient.invalidateQueries({ queryKey: ["handoff", handoffId] });
    void queryClient.invalidateQueries({ queryKey: ["handoffs"] });
  }, [state.status, state.successAt, handoffId, queryClient]);
}
