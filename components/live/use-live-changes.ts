"use client";

import { createContext, useContext, useEffect, useRef, useSyncExternalStore } from "react";
import { matches, type Change, type ChangeFilter, type ChangeSubject, type ReadyEvent, type ResetEvent } from "@/lib/changes/types";

/** Only when the stream cannot be opened: how often the page then refetches what it shows. */
export const FALLBACK_POLL_MS = 5000;
/** After a stream that was open drops, how long to wait for it to come back before polling. */
const POLL_AFTER_DROP_MS = 10_000;
/** Changes arriving within this window are applied together (one refetch for a burst of writes). */
const BATCH_MS = 30;
/** Backoff for reopening a stream the browser gave up on (it answered something other than a stream). */
const REOPEN_MS = [1000, 2000, 5000, 10_000, 30_000];
/** Changes kept to replay to a listener that subscribes after they arrived (a page just navigated to). */
const REPLAY_KEPT = 1000;

/** How the page is being kept current: `stream` (pushed), `polling` (the fallback), or on its way to one. */
export type LivePath = "connecting" | "stream" | "reconnecting" | "polling";
/** What changed: the changes pushed, or "unknown" (a reset, or a fallback poll): refetch all that is shown. */
export type LiveUpdate = Change[] | "unknown";
export type LiveState = { path: LivePath; seq: number };

type Listener = { filter: ChangeFilter; seen: number; onUpdate: (update: LiveUpdate) => void };

/**
 * A tab's ONE EventSource on `/api/events`, shared by everything in the tab that stays live (the
 * page, the attention count in the navigation, notifications): it carries every change and each
 * listener is handed those its filter matches, as the server would. Open while anyone listens.
 * A dropped stream is reopened by the browser with Last-Event-ID (or here with `after=` the last
 * seq seen) and the server replays what was missed. Polling every FALLBACK_POLL_MS happens only
 * when the stream cannot be opened at all (no EventSource, or errors before it ever opened) or
 * stays down after a drop.
 */
export class ChangeFeed {
  private readonly listeners = new Set<Listener>();
  private readonly stateListeners = new Set<() => void>();
  private state: LiveState;
  /** Every change with a seq above `keptFrom` that arrived, oldest first (at most REPLAY_KEPT). */
  private kept: Change[] = [];
  private keptFrom: number;
  private close: (() => void) | null = null;

  private readonly refusalListeners = new Set<() => void>();

  /** `since`: the change seq the server read before rendering the tab's first page. */
  constructor(since: number) {
    this.state = { path: "connecting", seq: since };
    this.keptFrom = since;
  }

  getState = (): LiveState => this.state;

  subscribeState = (onChange: () => void): (() => void) => {
    this.stateListeners.add(onChange);
    return () => this.stateListeners.delete(onChange);
  };

  /**
   * `since`: the change seq the server read before rendering what the listener shows. Changes
   * after it that the feed already has are handed over at once; if they are no longer all kept,
   * "unknown" (refetch everything).
   */
  subscribe(filter: ChangeFilter, since: number, onUpdate: (update: LiveUpdate) => void): () => void {
    const listener: Listener = { filter, seen: since, onUpdate };
    if (since < this.keptFrom) onUpdate("unknown");
    else this.handOver(listener, this.kept);
    this.listeners.add(listener);
    this.close ??= this.open();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) {
        this.close?.();
        this.close = null;
      }
    };
  }

  /**
   * `onRefused` is called when a stream that was open is refused on reopening (401 once the
   * session ended; a proxy's 502 while the server is away): the root layout reads the page again
   * at once if the server answers, so an ended session meets the guard, and the sign-in page, now
   * rather than at the fallback poll.
   */
  subscribeRefusal = (onRefused: () => void): (() => void) => {
    this.refusalListeners.add(onRefused);
    return () => this.refusalListeners.delete(onRefused);
  };

  private setState(next: Partial<LiveState>) {
    this.state = { ...this.state, ...next };
    for (const onChange of this.stateListeners) onChange();
  }

  private handOver(listener: Listener, changes: Change[]) {
    const fresh = changes.filter((change) => change.seq > listener.seen && matches(change, listener.filter));
    listener.seen = Math.max(listener.seen, changes.at(-1)?.seq ?? 0);
    if (fresh.length > 0) listener.onUpdate(fresh);
  }

  private deliver(batch: Change[]) {
    this.kept.push(...batch);
    if (this.kept.length > REPLAY_KEPT) this.keptFrom = this.kept.splice(0, this.kept.length - REPLAY_KEPT).at(-1)!.seq;
    this.setState({ path: "stream", seq: batch.at(-1)!.seq });
    for (const listener of this.listeners) this.handOver(listener, batch);
  }

  private refetchAll(seq?: number) {
    if (seq !== undefined) {
      this.kept = [];
      this.keptFrom = seq;
    }
    for (const listener of this.listeners) {
      if (seq !== undefined) listener.seen = Math.max(listener.seen, seq);
      listener.onUpdate("unknown");
    }
  }

  /** Opens the stream (or the fallback poll); returns what closes it. */
  private open(): () => void {
    let source: EventSource | null = null;
    let everOpened = false;
    let reopenAttempt = 0;
    let pending: Change[] = [];
    const timers = { batch: null as ReturnType<typeof setTimeout> | null, fallback: null as ReturnType<typeof setTimeout> | null, reopen: null as ReturnType<typeof setTimeout> | null };
    let poll: ReturnType<typeof setInterval> | null = null;

    const flush = () => {
      timers.batch = null;
      const batch = pending;
      pending = [];
      if (batch.length > 0) this.deliver(batch);
    };
    const startPolling = () => {
      timers.fallback = null;
      if (poll) return;
      this.setState({ path: "polling" });
      poll = setInterval(() => {
        if (document.visibilityState === "visible") this.refetchAll();
      }, FALLBACK_POLL_MS);
    };
    const stopFallback = () => {
      if (timers.fallback) clearTimeout(timers.fallback);
      timers.fallback = null;
      if (poll) clearInterval(poll);
      poll = null;
    };

    const connect = () => {
      timers.reopen = null;
      const stream = new EventSource(`/api/events?after=${this.state.seq}`);
      source = stream;
      stream.addEventListener("ready", (event) => {
        const ready = JSON.parse((event as MessageEvent<string>).data) as ReadyEvent;
        everOpened = true;
        reopenAttempt = 0;
        stopFallback();
        this.setState({ path: "stream", seq: Math.max(this.state.seq, ready.seq) });
      });
      stream.onmessage = (event: MessageEvent<string>) => {
        pending.push(JSON.parse(event.data) as Change);
        timers.batch ??= setTimeout(flush, BATCH_MS);
      };
      stream.addEventListener("reset", (event) => {
        const reset = JSON.parse((event as MessageEvent<string>).data) as ResetEvent;
        pending = [];
        this.setState({ path: "stream", seq: reset.seq });
        this.refetchAll(reset.seq);
      });
      stream.onerror = () => {
        if (!timers.fallback && !poll) {
          this.setState({ path: everOpened ? "reconnecting" : this.state.path });
          timers.fallback = setTimeout(startPolling, everOpened ? POLL_AFTER_DROP_MS : 0);
        }
        // CONNECTING: the browser retries by itself, sending Last-Event-ID. CLOSED: it gave up
        // (a refusal or a non-stream answer); reopen with `after=` the last seq, backing off.
        if (stream.readyState === EventSource.CLOSED && source === stream) {
          source = null;
          if (everOpened && reopenAttempt === 0) for (const onRefused of this.refusalListeners) onRefused();
          timers.reopen = setTimeout(connect, REOPEN_MS[Math.min(reopenAttempt++, REOPEN_MS.length - 1)]);
        }
      };
    };

    if (typeof EventSource === "undefined") startPolling();
    else connect();
    return () => {
      source?.close();
      stopFallback();
      if (timers.reopen) clearTimeout(timers.reopen);
      // Received but not yet handed over: kept for a listener that comes later, as `seq` has moved past them.
      if (timers.batch) clearTimeout(timers.batch);
      flush();
    };
  }
}

/** The tab's feed (components/live/live-feed.tsx provides it in the root layout). */
export const ChangeFeedContext = createContext<ChangeFeed | null>(null);

function useChangeFeed(): ChangeFeed {
  const feed = useContext(ChangeFeedContext);
  if (!feed) throw new Error("useLiveChanges needs the <LiveFeed> of the root layout above it");
  return feed;
}

/**
 * Keeps what a component shows current from the tab's change feed: `onUpdate` gets, in batches,
 * the changes `filter` matches after `since` (the change seq the server read before rendering
 * the data, so nothing written in between is missed). Returns how the tab is kept current.
 */
export function useLiveChanges({ filter, since, onUpdate }: { filter: ChangeFilter; since: number; onUpdate: (update: LiveUpdate) => void }): LiveState {
  const feed = useChangeFeed();
  const onUpdateRef = useRef(onUpdate);
  useEffect(() => {
    onUpdateRef.current = onUpdate;
  });
  // A newer `since` (the page re-rendered) matters only to a new filter: the subscription already
  // has everything after the one it started from, and resubscribing could close and reopen the stream.
  const sinceRef = useRef(since);
  useEffect(() => {
    sinceRef.current = since;
  });
  const { handoffId, agentId } = filter;
  const subjects = filter.subjects?.join(",");
  useEffect(
    () => feed.subscribe({ handoffId, agentId, subjects: subjects?.split(",") as ChangeSubject[] | undefined }, sinceRef.current, (update) => onUpdateRef.current(update)),
    [feed, handoffId, agentId, subjects],
  );
  return useSyncExternalStore(feed.subscribeState, feed.getState, feed.getState);
}
