"use client";

import { useEffect, useRef, useState } from "react";
import type { Change, ChangeSubject, ReadyEvent, ResetEvent } from "@/lib/changes/types";

/** Only when the stream cannot be opened: how often the page then refetches what it shows. */
export const FALLBACK_POLL_MS = 5000;
/** After a stream that was open drops, how long to wait for it to come back before polling. */
const POLL_AFTER_DROP_MS = 10_000;
/** Changes arriving within this window are applied together (one refetch for a burst of writes). */
const BATCH_MS = 30;
/** Backoff for reopening a stream the browser gave up on (it answered something other than a stream). */
const REOPEN_MS = [1000, 2000, 5000, 10_000, 30_000];

export type LiveFilter = { handoff?: string; agent?: number; subjects?: readonly ChangeSubject[] };
/** How the page is being kept current: `stream` (pushed), `polling` (the fallback), or on its way to one. */
export type LivePath = "connecting" | "stream" | "reconnecting" | "polling";
/** What changed: the changes pushed, or "unknown" (a reset, or a fallback poll): refetch all that is shown. */
export type LiveUpdate = Change[] | "unknown";

function queryOf(filter: LiveFilter): string {
  const params = new URLSearchParams();
  if (filter.handoff) params.set("handoff", filter.handoff);
  if (filter.agent !== undefined) params.set("agent", String(filter.agent));
  if (filter.subjects?.length) params.set("subject", filter.subjects.join(","));
  return params.toString();
}

/**
 * Keeps a page current with ONE EventSource on `/api/events` for what it shows. `since` is the
 * change seq the server read before rendering the page's data, so nothing written in between is
 * missed. Changes are handed to `onUpdate` in batches. A dropped stream is reopened by the
 * browser with Last-Event-ID (or by this hook with `after=` the last seq seen) and the server
 * replays what was missed. Polling every FALLBACK_POLL_MS happens only when the stream cannot be
 * opened at all (no EventSource, or errors before it ever opened) or stays down after a drop.
 */
export function useLiveChanges({ filter, since, onUpdate }: { filter: LiveFilter; since: number; onUpdate: (update: LiveUpdate) => void }) {
  const [state, setState] = useState<{ path: LivePath; seq: number }>({ path: "connecting", seq: since });
  const onUpdateRef = useRef(onUpdate);
  useEffect(() => {
    onUpdateRef.current = onUpdate;
  });
  // The resume point outlives a change of filter or a reopened stream; `since` only seeds it.
  const seqRef = useRef(since);
  const query = queryOf(filter);

  useEffect(() => {
    let source: EventSource | null = null;
    let everOpened = false;
    let reopenAttempt = 0;
    let pending: Change[] = [];
    const timers = { batch: null as ReturnType<typeof setTimeout> | null, fallback: null as ReturnType<typeof setTimeout> | null, reopen: null as ReturnType<typeof setTimeout> | null };
    let poll: ReturnType<typeof setInterval> | null = null;

    const apply = (update: LiveUpdate) => onUpdateRef.current(update);
    const flush = () => {
      timers.batch = null;
      const batch = pending;
      pending = [];
      if (batch.length === 0) return;
      setState({ path: "stream", seq: seqRef.current });
      apply(batch);
    };
    const startPolling = () => {
      timers.fallback = null;
      if (poll) return;
      setState((current) => ({ ...current, path: "polling" }));
      poll = setInterval(() => {
        if (document.visibilityState === "visible") apply("unknown");
      }, FALLBACK_POLL_MS);
    };
    const stopFallback = () => {
      if (timers.fallback) clearTimeout(timers.fallback);
      timers.fallback = null;
      if (poll) clearInterval(poll);
      poll = null;
    };

    const open = () => {
      timers.reopen = null;
      const stream = new EventSource(`/api/events?${query}${query ? "&" : ""}after=${seqRef.current}`);
      source = stream;
      stream.addEventListener("ready", (event) => {
        const ready = JSON.parse((event as MessageEvent<string>).data) as ReadyEvent;
        seqRef.current = ready.seq;
        everOpened = true;
        reopenAttempt = 0;
        stopFallback();
        setState({ path: "stream", seq: ready.seq });
      });
      stream.onmessage = (event: MessageEvent<string>) => {
        const change = JSON.parse(event.data) as Change;
        seqRef.current = change.seq;
        pending.push(change);
        timers.batch ??= setTimeout(flush, BATCH_MS);
      };
      stream.addEventListener("reset", (event) => {
        const reset = JSON.parse((event as MessageEvent<string>).data) as ResetEvent;
        seqRef.current = reset.seq;
        pending = [];
        setState({ path: "stream", seq: reset.seq });
        apply("unknown");
      });
      stream.onerror = () => {
        if (!timers.fallback && !poll) {
          setState((current) => ({ ...current, path: everOpened ? "reconnecting" : current.path }));
          timers.fallback = setTimeout(startPolling, everOpened ? POLL_AFTER_DROP_MS : 0);
        }
        // CONNECTING: the browser retries by itself, sending Last-Event-ID. CLOSED: it gave up
        // (a refusal or a non-stream answer); reopen with `after=` the last seq, backing off.
        if (stream.readyState === EventSource.CLOSED && source === stream) {
          source = null;
          timers.reopen = setTimeout(open, REOPEN_MS[Math.min(reopenAttempt++, REOPEN_MS.length - 1)]);
        }
      };
    };

    if (typeof EventSource === "undefined") startPolling();
    else open();
    return () => {
      source?.close();
      stopFallback();
      if (timers.batch) clearTimeout(timers.batch);
      if (timers.reopen) clearTimeout(timers.reopen);
    };
  }, [query]);

  return state;
}
