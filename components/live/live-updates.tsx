"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useMemo } from "react";
import { attentionKeys, historyKeys, threadKeys } from "@/lib/queries";
import { usePageRefresh, useThrottled } from "./live-feed";
import type { ChangeFilter } from "@/lib/changes/types";
import { FALLBACK_POLL_MS, useLiveChanges, type LivePath } from "./use-live-changes";

/** What a page shows, and so which changes it listens to and what it refetches when they come. */
export type LiveScope =
  | { kind: "thread"; handoffId: string }
  | { kind: "history" }
  /** The desk (the home page): the history, and what needs the operator (server-rendered, re-rendered on any change). */
  | { kind: "desk" }
  /** The agents list and an agent's page: server-rendered, re-rendered when an agent or shift handoff changes. */
  | { kind: "agents" };

function filterOf(scope: LiveScope): ChangeFilter {
  if (scope.kind === "thread") return { handoffId: scope.handoffId };
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
 * The one mechanism that keeps a dashboard page live: the tab's change feed (use-live-changes)
 * and what the page refetches on a change. Shows a small status saying how the page is kept
 * current; `data-live-path` and `data-live-seq` say the same to tests.
 */
export function LiveUpdates({ scope, since }: { scope: LiveScope; since: number }) {
  const queryClient = useQueryClient();
  const refreshPage = usePageRefresh();
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
        refreshPage("soon");
      } else refreshPage("now");
    },
  });
  return (
    <p data-testid="live-status" data-live-path={path} data-live-seq={seq} className="mb-3 flex items-center gap-1.5 text-xs text-slate-600">
      <span aria-hidden className={`inline-block h-2 w-2 rounded-full ${path === "stream" ? "bg-emerald-600" : "bg-amber-500"}`} />
      {statusText[path]}
    </p>
  );
}

/** Every subject: a question asked, a thread read or closed, an agent near its limit, a stalled delivery. */
const ATTENTION_FILTER: ChangeFilter = {};

/**
 * Keeps what needs the operator current on every page: on a change, the navigation's count (and
 * with it the tab's title, components/live/attention-badge.tsx) is read again, at most every
 * couple of seconds, without rendering the page again. A hidden tab only marks it out of date;
 * it is read when the tab is seen again.
 */
export function LiveAttention({ since }: { since: number }) {
  const queryClient = useQueryClient();
  const readCount = useCallback(
    () => void queryClient.invalidateQueries({ queryKey: attentionKeys, refetchType: document.visibilityState === "visible" ? "active" : "none" }),
    [queryClient],
  );
  const readCountSoon = useThrottled(readCount);
  useLiveChanges({ filter: ATTENTION_FILTER, since, onUpdate: () => readCountSoon("soon") });
  return null;
}
