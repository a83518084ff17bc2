"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef } from "react";
import { attentionCountQuery, attentionKeys } from "@/lib/queries";

const isTitle = (node: Node | null) => node?.nodeName === "TITLE";
const touchesTitle = (record: MutationRecord) =>
  isTitle(record.target) || isTitle(record.target.parentNode) || [...record.addedNodes, ...record.removedNodes].some(isTitle);

/**
 * Puts "(count) " in front of the tab's title and keeps it there. The pages' titles carry no
 * count, so a title this hook did not write (Next sets one on every navigation) is the base, even
 * when it reads as the one written: a handoff titled "(3) …" opened while the count is 3.
 */
function useTitleCount(count: number): void {
  const written = useRef<string | null>(null);
  const base = useRef("");
  useEffect(() => {
    const write = () => {
      const wanted = count > 0 ? `(${count}) ${base.current}` : base.current;
      written.current = wanted;
      if (document.title !== wanted) document.title = wanted;
      // This hook's own write is not a new base.
      observer.takeRecords();
    };
    // Only a change to a <title> (its text, or one added or taken away) is a new title; Next adds other tags to the head too.
    const observer = new MutationObserver((records) => {
      if (!records.some(touchesTitle)) return;
      base.current = document.title;
      write();
    });
    if (document.title !== written.current) base.current = document.title;
    write();
    observer.observe(document.head, { childList: true, subtree: true, characterData: true });
    return () => observer.disconnect();
  }, [count]);
}

/**
 * The navigation's count of what needs the operator, linking to the list on the desk, and the
 * same count in the tab's title. `renderedCount`: what the server read when it rendered the page;
 * from then on LiveAttention (components/live/live-updates.tsx) has it read again after changes.
 */
export function AttentionBadge({ renderedCount }: { renderedCount: number }) {
  const queryClient = useQueryClient();
  // Read again whenever the tab is seen again, stale or not: Done, Snooze and Undo in another tab,
  // and a snooze running out, write no change this tab hears.
  const { data: count } = useQuery({ ...attentionCountQuery(), initialData: renderedCount, staleTime: Infinity, refetchOnWindowFocus: "always" });
  // A later server render (Done or Snooze on the desk revalidates it) brings the count it read.
  useEffect(() => {
    queryClient.setQueryData(attentionKeys, renderedCount);
  }, [queryClient, renderedCount]);
  useTitleCount(count);
  if (count === 0) return null;
  return (
    <Link
      href="/#attention"
      data-testid="attention-count"
      className="rounded-full bg-amber-100 px-2 py-0.5 text-xs font-semibold text-amber-900 ring-1 ring-amber-300 ring-inset hover:bg-amber-200"
    >
      {count}
      <span className="sr-only"> {count === 1 ? "thing needs" : "things need"} your attention</span>
    </Link>
  );
}
