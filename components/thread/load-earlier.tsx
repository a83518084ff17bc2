"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { buttonClass } from "@/components/ui/button";
import type { ClientSide } from "@/lib/handoffs/schemas";
import { loadEarlierEntries } from "@/lib/queries";

/** The thread page holds the latest entries; this fetches the page before the first one held. */
export function LoadEarlier({ handoffId, viewingAs, earlierCount }: { handoffId: string; viewingAs: ClientSide; earlierCount: number }) {
  const queryClient = useQueryClient();
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  async function load() {
    setPending(true);
    setFailure(null);
    try {
      await loadEarlierEntries(queryClient, handoffId, viewingAs);
    } catch (error) {
      setFailure((error as Error).message);
    } finally {
      setPending(false);
    }
  }
  return (
    <div className="mb-3 flex flex-wrap items-center gap-3 text-sm">
      <button type="button" onClick={load} disabled={pending} className={buttonClass("secondary")}>
        {pending ? "Loading…" : "Load earlier entries"}
      </button>
      <span data-testid="earlier-count" className="text-slate-600">
        {earlierCount === 1 ? "1 earlier entry not shown" : `${earlierCount} earlier entries not shown`}
      </span>
      {failure && (
        <span role="alert" className="text-red-700">
          Could not load them: {failure}
        </span>
      )}
    </div>
  );
}
