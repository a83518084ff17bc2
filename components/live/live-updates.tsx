"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useRef } from "react";
import { historyKeys, threadKeys } from "@/lib/queries";
import { FALLBACK_POLL_MS, useLiveChanges, type LiveFilter, type LivePath } from "./use-live-changes";

/** What a page shows, and so which changes it listens to and what it refetches when they come. */
export type LiveScope =
  | { kind: "thread"; handoffId: string }
  | { kind: "history" }
  /** The desk (the home page): the history, and what needs the operator (server-rendered, re-rendered on any change). */
  | { kind: "desk" }
  /** The agents list and an agent's page: server-rendered, re-rendered when an agent or shift handoff changes. */
  | { kind: "agents" };

function filterOf(scope: LiveScope): LiveFilter {
  if (scope.kind === "thread") return { handoff: scope.handoffId };
  if (scope.kind === "history") return { subjects: ["handoff", "entry"] };
  if (scope.kind === "desk") return { subjects: ["handoff", "entry", "agent", "shift_handoff"] };
  return { subjects: ["agent", "shift_handoff"] };
}

const statusText: Record<LivePath, string> = {
  connecting: "Connecting to live updates…",
  stream: "Live",
  reconnecting: "Reconnecting…",
  polling: `Live updates unavailable; checking every ${FALLBACK_POLL_MS / 1000} s`,
};

/**
 * Re-renders the server page, except while the tab is hidden or a dialog is open (the operator
 * may be typing a shift document); then once when that ends.
 */
function usePageRefresh(): () => void {
  const router = useRouter();
  const owed = useRef(false);
  const refresh = useMemo(
    () => () => {
      if (document.visibilityState !== "visible" || document.querySelector("dialog[open]")) {
        owed.current = true;
        return;
      }
      owed.current = false;
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
    };
  }, [refresh]);
  return refresh;
}

/**
 * The desk re-renders its attention view at most this often: a busy server writes many entries a
 * second, and each re-render reads the attention queries again (git for staleness included).
 */
const DESK_REFRESH_MS = 2000;

/** `run`, at most once per `ms`: a call within the window runs once at its end. */
function useThrottled(run: () => void, ms: number): () => void {
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const last = useRef(0);
  useEffect(() => () => clearTimeout(timer.current ?? undefined), []);
  return useMemo(
    () => () => {
      if (timer.current) return;
      const wait = Math.max(0, last.current + ms - Date.now());
      timer.current = setTimeout(() => {
        timer.current = null;
        last.current = Date.now();
        run();
      }, wait);
    },
    [run, ms],
  );
}

/**
 * The one mechanism that keeps a dashboard page live: the page's change stream (use-live-changes)
 * and what it refetches on a change. Shows a small status saying how the page is kept current;
 * `data-live-path` and `data-live-seq` say the same to tests.
 */
export function LiveUpdates({ scope, since }: { scope: LiveScope; since: number }) {
  const queryClient = useQueryClient();
  const refreshPage = usePageRefresh();
  const refreshPageSoon = useThrottled(refreshPage, DESK_REFRESH_MS);
  const scopeKey = scope.kind === "thread" ? `thread:${scope.handoffId}` : scope.kind;
  // eslint-disable-next-line react-hooks/exhaustive-deps -- scopeKey is the scope's identity; a new object with the same key is the same scope.
  const filter = useMemo(() => filterOf(scope), [scopeKey]);
  const { path, seq } = useLiveChanges({
    filter,
    since,
    onUpdate: () => {
      if (scope.kind === "thread") void queryClient.invalidateQueries({ queryKey: threadKeys(scope.handoffId) });
      else if (scope.kind === "history") void queryClient.invalidateQueries({ queryKey: historyKeys });
      else if (scope.kind === "desk") {
        void queryClient.invalidateQueries({ queryKey: historyKeys });
        refreshPageSoon();
      } else refreshPage();
    },
  });
  return (
    <p data-testid="live-status" data-live-path={path} data-live-seq={seq} className="mb-3 flex items-center gap-1.5 text-xs text-slate-600">
      <span aria-hidden className={`inline-block h-2 w-2 rounded-full ${path === "stream" ? "bg-emerald-600" : "bg-amber-500"}`} />
      {statusText[path]}
    </p>
  );
}
