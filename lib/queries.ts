import { queryOptions, type QueryClient } from "@tanstack/react-query";
import type { EntryView, HandoffPage, HandoffThread, HandoffView } from "./handoffs";
import { END_OF_THREAD, THREAD_PAGE_SIZE } from "./handoffs/limits";
import { HISTORY_FILTER_FIELDS } from "./handoffs/history-filters";
import type { ApiError } from "./http";
import { urlFilters, type UrlFilters } from "./url-filters";

const historyFilters = urlFilters(HISTORY_FILTER_FIELDS);

export type HistoryFilters = UrlFilters<typeof HISTORY_FILTER_FIELDS>;

/** History filters from a URL's search params; a value that makes no sense is dropped, not fatal. */
export const historyFiltersFrom = historyFilters.parse;

/** The URL query string for filters (and an optional other page). */
export const historySearch = historyFilters.search;

async function fetchJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { headers: { accept: "application/json" } });
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as ApiError | null;
    throw new Error(body?.error.message ?? `request failed with status ${response.status}`);
  }
  return (await response.json()) as T;
}

export function historyQuery(filters: HistoryFilters) {
  return queryOptions({
    queryKey: [...historyKeys, filters],
    queryFn: () => fetchJson<HandoffPage>(`/api/handoffs${historySearch(filters)}`),
  });
}

/**
 * What an open thread page holds: the header, the thread's opening entry (#1, when the run below
 * does not start with it), a contiguous run of entries, and how many entries lie folded between
 * the two and after the run. The run grows at both ends: "Load earlier" prepends, live refresh
 * appends what follows the last entry held.
 */
export type ThreadState = {
  handoff: HandoffView;
  opening: EntryView[];
  entries: EntryView[];
  newCount: number;
  entryCount: number;
  /** Entries between the opening and the run, not loaded. */
  earlierCount: number;
  /** Entries after the run, not loaded yet (the run was cut by the page's budget). */
  laterCount: number;
};

/** Entries strictly between the opening and the run. */
function foldedBetween(opening: EntryView[], entries: EntryView[]): number {
  const first = entries[0];
  return first ? first.number - (opening.at(-1)?.number ?? 0) - 1 : 0;
}

/** The state of a page that has loaded a run (and, when the run starts later, the opening entry). */
export function threadStateOf(thread: HandoffThread, openingEntries: EntryView[] = []): ThreadState {
  const start = thread.entries[0]?.number ?? 1;
  const opening = openingEntries.filter((entry) => entry.number < start);
  return {
    handoff: thread.handoff,
    opening,
    entries: thread.entries,
    newCount: thread.newCount,
    entryCount: thread.entryCount,
    earlierCount: foldedBetween(opening, thread.entries),
    laterCount: thread.omitted.later?.count ?? 0,
  };
}

/** The held state with the answer for "after the last entry held": new header, entries appended. */
function withLater(held: ThreadState, later: HandoffThread): ThreadState {
  // Closing wipes the entries: a completed thread shows none, whatever was held.
  if (later.handoff.status !== "active") return { ...threadStateOf(later), opening: [], entries: [], earlierCount: 0, laterCount: 0 };
  const last = held.entries.at(-1)?.seq ?? 0;
  const added = later.entries.filter((entry) => entry.seq > last);
  return {
    ...held,
    handoff: later.handoff,
    entries: added.length ? [...held.entries, ...added] : held.entries,
    newCount: later.newCount,
    entryCount: later.entryCount,
    laterCount: later.omitted.later?.count ?? 0,
  };
}

const threadUrl = (id: string, asClient: string, paging: string) =>
  `/api/handoffs/${encodeURIComponent(id)}?as=${asClient}&${paging}`;

/** Query-key prefixes for invalidation: every history page, and both sides' views of one thread. */
export const historyKeys = ["handoffs"] as const;
/** The count of what needs the operator (the navigation's badge and the tab's title). */
export const attentionKeys = ["attention"] as const;

/** How many things need the operator now (GET /api/attention, with their own Done and Snooze applied). */
export function attentionCountQuery() {
  return queryOptions({ queryKey: attentionKeys, queryFn: async () => (await fetchJson<{ count: number }>("/api/attention")).count });
}
export const threadKeys = (id: string) => ["handoff", id] as const;
/** `at`: the entry a link opened the thread at (`?entry=`), which decides the first run; 0 for none. */
const threadKey = (id: string, asClient: "chat" | "code", at: number | null) => [...threadKeys(id), asClient, at ?? 0] as const;

/**
 * A live thread. The first load is the latest page; every refresh after that (when the change
 * stream says this thread changed) asks only for the entries after the last one held.
 */
export function threadQuery(id: string, asClient: "chat" | "code", at: number | null = null) {
  const queryKey = threadKey(id, asClient, at);
  return queryOptions({
    queryKey,
    queryFn: async ({ client }): Promise<ThreadState> => {
      const held = client.getQueryData<ThreadState>(queryKey);
      if (!held) {
        const start = at === null ? `before_seq=${END_OF_THREAD}` : `from_number=${at}`;
        return threadStateOf(await fetchJson<HandoffThread>(threadUrl(id, asClient, `${start}&limit=${THREAD_PAGE_SIZE}`)));
      }
      const later = await fetchJson<HandoffThread>(threadUrl(id, asClient, `after_seq=${held.entries.at(-1)?.seq ?? 0}`));
      // "Load earlier" may have landed while this was in flight: merge into what is held now.
      return withLater(client.getQueryData<ThreadState>(queryKey) ?? held, later);
    },
  });
}

/** Loads the page of entries before the first one held and puts it in front; the fold above it shrinks. */
export async function loadEarlierEntries(client: QueryClient, id: string, asClient: "chat" | "code", at: number | null): Promise<void> {
  const queryKey = threadKey(id, asClient, at);
  const first = client.getQueryData<ThreadState>(queryKey)?.entries[0]?.seq;
  if (first === undefined) return;
  const page = await fetchJson<HandoffThread>(threadUrl(id, asClient, `before_seq=${first}&limit=${THREAD_PAGE_SIZE}`));
  client.setQueryData<ThreadState>(queryKey, (held) => {
    if (!held || held.handoff.status !== "active") return held;
    const start = held.entries[0]?.seq ?? END_OF_THREAD;
    const openingEnd = held.opening.at(-1)?.number ?? 0;
    const entries = [...page.entries.filter((entry) => entry.seq < start && entry.number > openingEnd), ...held.entries];
    // Once the fold is gone, the opening is simply the run's start.
    const opening = foldedBetween(held.opening, entries) === 0 ? [] : held.opening;
    const run = opening.length ? entries : [...held.opening, ...entries];
    // Counted on the run as shown: counted before the opening joined it, the last fold read "1 earlier entry" above #1.
    return { ...held, opening, entries: run, earlierCount: foldedBetween(opening, run) };
  });
}
