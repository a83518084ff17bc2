import { queryOptions } from "@tanstack/react-query";
import { z } from "zod";
import type { HandoffPage, HandoffThread } from "./handoffs";
import type { ApiError } from "./http";
import { MAX_PAGE, wholeNumberParam } from "./validation";

/** How often open pages poll, so agents' work shows up within 2 s without a reload. */
const POLL_INTERVAL_MS = 1000;

const historyFiltersSchema = z.object({
  status: z.enum(["active", "completed"]).optional().catch(undefined),
  project: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/).optional().catch(undefined),
  q: z.string().trim().min(1).max(200).optional().catch(undefined),
  source: z.enum(["native", "bundle", "handoff_json", "handoff_yaml"]).optional().catch(undefined),
  page: wholeNumberParam("page", 1, MAX_PAGE).catch(undefined),
});

export type HistoryFilters = z.infer<typeof historyFiltersSchema>;

/** History filters from a URL's search params; a value that makes no sense is dropped, not fatal. */
export function historyFiltersFrom(params: Record<string, string | string[] | undefined>): HistoryFilters {
  const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value) || undefined;
  const parsed = historyFiltersSchema.parse({
    status: first(params.status),
    project: first(params.project),
    q: first(params.q),
    source: first(params.source),
    page: first(params.page),
  });
  return Object.fromEntries(Object.entries(parsed).filter(([, value]) => value !== undefined)) as HistoryFilters;
}

/** The URL query string for filters (and an optional other page). */
export function historySearch(filters: HistoryFilters, page = filters.page): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...filters, page: page && page > 1 ? page : undefined })) {
    if (value !== undefined) params.set(key, String(value));
  }
  const search = params.toString();
  return search ? `?${search}` : "";
}

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
    queryKey: ["handoffs", filters],
    queryFn: () => fetchJson<HandoffPage>(`/api/handoffs${historySearch(filters)}`),
    refetchInterval: POLL_INTERVAL_MS,
  });
}

export function threadQuery(id: string, asClient: "chat" | "code") {
  return queryOptions({
    queryKey: ["handoff", id, asClient],
    queryFn: () => fetchJson<HandoffThread>(`/api/handoffs/${encodeURIComponent(id)}?as=${asClient}`),
    refetchInterval: POLL_INTERVAL_MS,
  });
}
