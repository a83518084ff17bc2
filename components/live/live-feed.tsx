"use client";

import { useRouter } from "next/navigation";
import { createContext, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { ChangeFeed, ChangeFeedContext } from "./use-live-changes";

/**
 * How soon the server page is re-rendered: `now`, or `soon` (at most once per PAGE_REFRESH_MS:
 * a busy server writes many entries a second, and each re-render reads the attention queries
 * again, git for staleness included).
 */
export type RefreshWhen = "now" | "soon";
const PAGE_REFRESH_MS = 2000;

const PageRefreshContext = createContext<(when: RefreshWhen) => void>(() => {});

/** Asks for the server page (the layout's attention count and title included) to be re-rendered. */
export function usePageRefresh(): (when: RefreshWhen) => void {
  return useContext(PageRefreshContext);
}

/**
 * One re-render of the server page for every request made in the same turn (the page and the
 * attention count hear the same change), none while the tab is hidden or a dialog is open (the
 * operator may be typing a shift document), then one when that ends.
 */
function usePageRefresher(): (when: RefreshWhen) => void {
  const router = useRouter();
  const owed = useRef(false);
  const requested = useRef<RefreshWhen | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const last = useRef(0);
  const refresh = useMemo(
    () => () => {
      if (document.visibilityState !== "visible" || document.querySelector("dialog[open]")) {
        owed.current = true;
        return;
      }
      owed.current = false;
      last.current = Date.now();
      router.refresh();
    },
    [router],
  );
  useEffect(() => {
    const settle = () => {
      if (owed.current) refresh();
    };
    document.addEventListener("visibilitychange", settle);
    // A dialog's `close` does not bubble; listen in the capture phase.
    document.addEventListener("close", settle, true);
    return () => {
      document.removeEventListener("visibilitychange", settle);
      document.removeEventListener("close", settle, true);
      clearTimeout(timer.current ?? undefined);
    };
  }, [refresh]);
  return useMemo(() => {
    const decide = () => {
      const when = requested.current;
      requested.current = null;
      if (when === "now") {
        clearTimeout(timer.current ?? undefined);
        timer.current = null;
        refresh();
      } else if (!timer.current) {
        timer.current = setTimeout(
          () => {
            timer.current = null;
            refresh();
          },
          Math.max(0, last.current + PAGE_REFRESH_MS - Date.now()),
        );
      }
    };
    return (when: RefreshWhen) => {
      if (requested.current === null) queueMicrotask(decide);
      if (requested.current !== "now") requested.current = when;
    };
  }, [refresh]);
}

/**
 * The tab's change feed, in the root layout so it outlives navigation: every live part of every
 * page listens to the same stream. `since`: the change seq read before the layout rendered.
 */
export function LiveFeed({ since, children }: { since: number; children: ReactNode }) {
  const [feed] = useState(() => new ChangeFeed(since));
  const refreshPage = usePageRefresher();
  return (
    <ChangeFeedContext value={feed}>
      <PageRefreshContext value={refreshPage}>{children}</PageRefreshContext>
    </ChangeFeedContext>
  );
}
