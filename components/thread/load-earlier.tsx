"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { buttonClass } from "@/components/ui/button";
import type { ClientSide } from "@/lib/handoffs/schemas";
import { loadEarlierEntries, threadQuery } from "@/lib/queries";

/** The fold between the thread's opening and the run the page holds: unfolds the page of entries before the run. */
export function LoadEarlier({ handoffId, viewingAs, openedAt, earlierCount }: { handoffId: string; viewingAs: ClientSide; openedAt: number | null; earlierCount: number }) {
  const queryClient = useQueryClient();
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  async function load() {
    setPending(true);
    setFailure(null);
    try {
      await loadEarlierEntries(queryClient, handoffId, viewingAs, openedAt);
    } catch (error) {
      setFailure((error as Error).message);
    } finally {
      setPending(false);
    }
  }
  return (
    <div role="group" aria-label="Folded entries" className="mb-3 flex flex-wrap items-center gap-3 rounded-lg border border-dashed border-slate-300 px-3 py-2 text-sm">
      <button type="button" onClick={load} disabled={pending} className={buttonClass("secondary")}>
        {pending ? "Loading…" : "Show earlier"}
      </button>
      <span data-testid="earlier-count" className="text-slate-600">
        {earlierCount === 1 ? "1 earlier entry" : `${earlierCount} earlier entries`}
      </span>
      {failure && (
        <span role="alert" className="text-red-700">
          Could not load them: {failure}
        </span>
      )}
    </div>
  );
}

/** After a run the page's budget cut: asks for what follows the last entry held (as live updates do). */
export function LoadLater({ handoffId, viewingAs, openedAt, laterCount }: { handoffId: string; viewingAs: ClientSide; openedAt: number | null; laterCount: number }) {
  const queryClient = useQueryClient();
  const [pending, setPending] = useState(false);
  async function load() {
    setPending(true);
    try {
      await queryClient.refetchQueries(threadQuery(handoffId, viewingAs, openedAt));
    } finally {
      setPending(false);
    }
  }
  return (
    <div role="group" aria-label="Later entries" className="mt-3 flex flex-wrap items-center gap-3 rounded-lg border border-dashed border-slate-300 px-3 py-2 text-sm">
      <button type="button" onClick={load} disabled={pending} className={buttonClass("secondary")}>
        {pending ? "Loading…" : "Show later"}
      </button>
      <span data-testid="later-count" className="text-slate-600">
        {laterCount === 1 ? "1 later entry" : `${laterCount} later entries`}
      </span>
    </div>
  );
}
