"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { buttonClass } from "@/components/ui/button";
import type { ClientSide } from "@/lib/handoffs/schemas";
import { loadEarlierEntries, threadQuery } from "@/lib/queries";

const countText = (count: number, which: string) => (count === 1 ? `1 ${which} entry` : `${count} ${which} entries`);

/**
 * A dashed bar standing for entries the page does not hold, with the button that fetches them;
 * a failed fetch says why beside it.
 */
function FoldBar({ label, action, counted, load }: { label: string; action: string; counted: { testId: string; text: string }; load: () => Promise<void> }) {
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  async function run() {
    setPending(true);
    setFailure(null);
    try {
      await load();
    } catch (error) {
      setFailure((error as Error).message);
    } finally {
      setPending(false);
    }
  }
  return (
    <div role="group" aria-label={label} className="my-3 flex flex-wrap items-center gap-3 rounded-lg border border-dashed border-slate-300 px-3 py-2 text-sm">
      <button type="button" onClick={run} disabled={pending} className={buttonClass("secondary")}>
        {pending ? "Loading…" : action}
      </button>
      <span data-testid={counted.testId} className="text-slate-600">
        {counted.text}
      </span>
      {failure && (
        <span role="alert" className="text-red-700">
          Could not load them: {failure}
        </span>
      )}
    </div>
  );
}

/** The fold between the thread's opening and the run the page holds: unfolds the page of entries before the run. */
export function LoadEarlier({ handoffId, viewingAs, openedAt, earlierCount }: { handoffId: string; viewingAs: ClientSide; openedAt: number | null; earlierCount: number }) {
  const queryClient = useQueryClient();
  return (
    <FoldBar
      label="Folded entries"
      action="Show earlier"
      counted={{ testId: "earlier-count", text: countText(earlierCount, "earlier") }}
      load={() => loadEarlierEntries(queryClient, handoffId, viewingAs, openedAt)}
    />
  );
}

/** After a run the page's budget cut: asks for what follows the last entry held (as live updates do). */
export function LoadLater({ handoffId, viewingAs, openedAt, laterCount }: { handoffId: string; viewingAs: ClientSide; openedAt: number | null; laterCount: number }) {
  const queryClient = useQueryClient();
  return (
    <FoldBar
      label="Later entries"
      action="Show later"
      counted={{ testId: "later-count", text: countText(laterCount, "later") }}
      load={() => queryClient.refetchQueries(threadQuery(handoffId, viewingAs, openedAt))}
    />
  );
}
