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
 * What an open thread page holds: the header, a run of entries that ends at the latest one, and
 * how many earlier entries it has not loaded. It grows at both ends: live refresh appends,
 * "Load earlier" prepends.
 */
export type ThreadState = {
  handoff: HandoffView;
  entries: EntryView[];
  newCount: number;
  entryCount: number;
  earlierCount: number;
};

/** The state of a page that has loaded one answer: the latest page of entries. */
export function threadStateOf(thread: HandoffThread): ThreadState {
  return {
    handoff: thread.handoff,
    entries: thread.entries,
    newCount: thread.newCount,
    entryCount: thread.entryCount,
    earlierCount: thread.omitted.earlier?.count ?? 0,
  };
}

/** The held state with the answer for "after the last entry held": new header, entries appended. */
function withLater(held: ThreadState, later: HandoffThread): ThreadState {
  // Closing wipes the entries: a completed thread shows none, whatever was held.
  if (later.handoff.status !== "active") return { ...threadStateOf(later), entries: [], earlierCount: 0 };
  const last = held.entries.at(-1)?.seq ?? 0;
  const added = later.entries.filter((entry) => entry.seq > last);
  return {
    ...held,
    handoff: later.handoff,
    entries: added.length ? [...held.entries, ...added] : held.entries,
    newCount: later.newCount,
    entryCount: later.entryCount,
  };
}

const threadUrl = (id: string, asClient: string, paging: string) =>
  `/api/handoffs/${encodeURIComponent(id)}?as=${asClient}&${paging}`;

/** Query-key prefixes for invalidation: every history page, and both sides' views of one thread. */
export const historyKeys = ["handoffs"] as const;
export const threadKeys = (id: string) => ["handoff", id] as const;
const threadKey = (id: string, asClient: "chat" | "code") => [...threadKeys(id), asClient] as const;

/**
 * A live thread. The first load is the latest page; every refresh after that (when the change
 * stream says this thread changed) asks only for the entries after the last one held.
 */
export function threadQuery(id: string, asClient: "chat" | "code") {
  const queryKey = threadKey(id, asClient);
  return queryOptions({
    queryKey,
    queryFn: async ({ client }): Promise<ThreadState> => {
      const held = client.getQueryData<ThreadState>(queryKey);
      if (!held) {
        return threadStateOf(await fetchJson<HandoffThread>(threadUrl(id, asClient, `before_seq=${END_OF_THREAD}&limit=${THREAD_PAGE_SIZE}`)));
      }
      const later = await fetchJson<HandoffThread>(threadUrl(id, asClient, `after_seq=${held.entries.at(-1)?.seq ?? 0}`));
      // "Load earlier" may have landed while this was in flight: merge into what is held now.
      return withLater(client.getQueryData<ThreadState>(queryKey) ?? held, later);
    },
  });
}

/** Loads the page of entries before the first one held and puts it in front. */
export async function loadEarlierEntries(client: QueryClient, id: string, asClient: "chat" | "code"): Promise<void> {
  const queryKey = threadKey(id, asClient);
  const first = client.getQueryData<ThreadState>(queryKey)?.entries[0]?.seq;
  if (first === undefined) return;
  const page = await fetchJson<HandoffThread>(threadUrl(id, asClient, `before_seq=${first}&limit=${THREAD_PAGE_SIZE}`));
  client.setQueryData<ThreadState>(queryKey, (held) => {
    if (!held || held.handoff.status !== "active") return held;
    const start = held.entries[0]?.seq ?? END_OF_THREAD;
    return {
      ...held,
      entries: [...page.entries.filter((entry) => entry.seq < start), ...held.entries],
      earlierCount: page.omitted.earlier?.count ?? 0,
    };
  });
}
