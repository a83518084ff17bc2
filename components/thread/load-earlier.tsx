"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useState } from "react";
import { buttonClass } from "@/components/ui/button";
import type { ClientSide } from "@/lib/handoffs/schemas";
import { loadEarlierEntries, threadQuery, type ThreadState } from "@/lib/queries";

const countText = (count: number, which: string) => (count === 1 ? `1 ${which} entry` : `${count} ${which} entries`);

/**
 * A dashed bar standing for entries the page does not hold, with the button that fetches them;
 * a failed fetch says why beside it. The button keeps focus while it loads (disabling it would
 * drop focus to the page), so Enter can be pressed again, and a status line tells screen readers
 * what came in. Once everything is held the bar goes, and focus moves to the first entry it
 * brought (`focusWhenGone`, an element id) rather than falling to the page.
 */
function FoldBar({ label, action, counted, load, focusWhenGone }: {
  label: string;
  action: string;
  counted: { testId: string; text: string };
  /** Fetches the entries; resolves to what to announce. */
  load: () => Promise<string>;
  focusWhenGone: string;
}) {
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [loaded, setLoaded] = useState("");
  // Detached when the bar goes: if the button had focus, hand it on once the new entries are in.
  const handFocusOn = useCallback(
    (button: HTMLButtonElement | null) => () => {
      if (button && document.activeElement === button) requestAnimationFrame(() => document.getElementById(focusWhenGone)?.focus());
    },
    [focusWhenGone],
  );
  async function run() {
    if (pending) return;
    setPending(true);
    setFailure(null);
    setLoaded("");
    try {
      setLoaded(await load());
    } catch (error) {
      setFailure((error as Error).message);
    } finally {
      setPending(false);
    }
  }
  return (
    <div role="group" aria-label={label} className="my-3 flex flex-wrap items-center gap-3 rounded-lg border border-dashed border-slate-300 px-3 py-2 text-sm">
      <button ref={handFocusOn} type="button" onClick={run} aria-disabled={pending || undefined} className={buttonClass("secondary", "aria-disabled:cursor-wait aria-disabled:text-slate-400")}>
        {pending ? "Loading…" : action}
      </button>
      <span data-testid={counted.testId} className="text-slate-600">
        {counted.text}
      </span>
      <span role="status" className="sr-only">
        {loaded}
      </span>
      {failure && (
        <span role="alert" className="text-red-700">
          Could not load them: {failure}
        </span>
      )}
    </div>
  );
}

/** Runs `fetchMore` on the thread's page and says how many entries it brought, for the fold's status line. */
function useFetchAndCount(handoffId: string, viewingAs: ClientSide, openedAt: number | null) {
  const queryClient = useQueryClient();
  const { queryKey } = threadQuery(handoffId, viewingAs, openedAt);
  const held = () => {
    const state = queryClient.getQueryData<ThreadState>(queryKey);
    return (state?.opening.length ?? 0) + (state?.entries.length ?? 0);
  };
  return async (fetchMore: () => Promise<unknown>, which: string) => {
    const before = held();
    await fetchMore();
    return `${countText(held() - before, which)} shown`;
  };
}

/** The fold between the thread's opening and the run the page holds: unfolds the page of entries before the run. */
export function LoadEarlier({ handoffId, viewingAs, openedAt, earlierCount, firstFolded }: {
  handoffId: string;
  viewingAs: ClientSide;
  openedAt: number | null;
  earlierCount: number;
  /** The number of the first entry folded away, where focus goes once none are. */
  firstFolded: number;
}) {
  const queryClient = useQueryClient();
  const fetchAndCount = useFetchAndCount(handoffId, viewingAs, openedAt);
  return (
    <FoldBar
      label="Folded entries"
      action="Show earlier"
      counted={{ testId: "earlier-count", text: countText(earlierCount, "earlier") }}
      load={() => fetchAndCount(() => loadEarlierEntries(queryClient, handoffId, viewingAs, openedAt), "earlier")}
      focusWhenGone={`entry-${firstFolded}`}
    />
  );
}

/** After a run the page's budget cut: asks for what follows the last entry held (as live updates do). */
export function LoadLater({ handoffId, viewingAs, openedAt, laterCount, firstLater }: {
  handoffId: string;
  viewingAs: ClientSide;
  openedAt: number | null;
  laterCount: number;
  /** The number of the first entry after those held, where focus goes once all are held. */
  firstLater: number;
}) {
  const queryClient = useQueryClient();
  const fetchAndCount = useFetchAndCount(handoffId, viewingAs, openedAt);
  return (
    <FoldBar
      label="Later entries"
      action="Show later"
      counted={{ testId: "later-count", text: countText(laterCount, "later") }}
      load={() => fetchAndCount(() => queryClient.refetchQueries(threadQuery(handoffId, viewingAs, openedAt)), "later")}
      focusWhenGone={`entry-${firstLater}`}
    />
  );
}
