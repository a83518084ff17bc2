"use client";

import { useRouter } from "next/navigation";
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { ChangeFeed, ChangeFeedContext } from "./use-live-changes";

/**
 * When a requested run happens: `now`, or `soon` (at most once per SOON_MS: a busy server writes
 * many entries a second, and each run reads the database again: a page's re-render the
 * attention queries with git for staleness included, the navigation's count the same queries).
 */
export type RefreshWhen = "now" | "soon";
export const SOON_MS = 2000;

const PageRefreshContext = createContext<(when: RefreshWhen) => void>(() => {});

/** Asks for the server page to be re-rendered (the desk and the agents' pages, which are server-rendered). */
export function usePageRefresh(): (when: RefreshWhen) => void {
  return useContext(PageRefreshContext);
}

/**
 * `run`, on request: requests made in the same turn share one run; `now` runs at once, `soon` at
 * most once per SOON_MS, those in between sharing one run at its end.
 */
export function useThrottled(run: () => void): (when: RefreshWhen) => void {
  const requested = useRef<RefreshWhen | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const last = useRef(0);
  useEffect(() => () => clearTimeout(timer.current ?? undefined), []);
  return useMemo(() => {
    const runNow = () => {
      last.current = Date.now();
      run();
    };
    const decide = () => {
      const when = requested.current;
      requested.current = null;
      if (when === "now") {
        clearTimeout(timer.current ?? undefined);
        timer.current = null;
        runNow();
      } else if (!timer.current) {
        timer.current = setTimeout(
          () => {
            timer.current = null;
            runNow();
          },
          Math.max(0, last.current + SOON_MS - Date.now()),
        );
      }
    };
    return (when: RefreshWhen) => {
      if (requested.current === null) queueMicrotask(decide);
      if (requested.current !== "now") requested.current = when;
    };
  }, [run]);
}

/**
 * One re-render of the server page for every request made in the same turn, none while the tab
 * is hidden or a dialog is open (the operator may be typing a shift document), then one when
 * that ends. Off the stream (the fallback poll), only once the server answers its health check:
 * a re-render the server cannot answer (a proxy's 502 while every instance is away) would replace
 * the page with the error, where the page can wait and catch up.
 */
function usePageRefresher(feed: ChangeFeed): (when: RefreshWhen) => void {
  const router = useRouter();
  const owed = useRef(false);
  const refresh = useCallback(() => {
    if (document.visibilityState !== "visible" || document.querySelector("dialog[open]")) {
      owed.current = true;
      return;
    }
    owed.current = false;
    if (feed.getState().path === "stream") {
      router.refresh();
      return;
    }
    fetch("/api/health", { cache: "no-store" }).then(
      (health) => (health.ok ? router.refresh() : (owed.current = true)),
      () => (owed.current = true),
    );
  }, [router, feed]);
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
    };
  }, [refresh]);
  return useThrottled(refresh);
}

/**
 * The tab's change feed, in the root layout so it outlives navigation: every live part of every
 * page listens to the same stream. `since`: the change seq read before the layout rendered.
 */
export function LiveFeed({ since, children }: { since: number; children: ReactNode }) {
  const [feed] = useState(() => new ChangeFeed(since));
  const refreshPage = usePageRefresher(feed);
  useEffect(() => feed.subscribeRefusal(() => refreshPage("now")), [feed, refreshPage]);
  return (
    <ChangeFeedContext value={feed}>
      <PageRefreshContext value={refreshPage}>{children}</PageRefreshContext>
    </ChangeFeedContext>
  );
}
