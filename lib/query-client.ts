/**
 * The one TanStack QueryClient factory: a fresh client per server render, one per browser tab.
 * Client-safe.
 */
import { isServer, QueryClient } from "@tanstack/react-query";

function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // Open pages stay current by push (components/live invalidates what a change touches), so
        // nothing refetches on a timer or on focus. A short staleTime makes a page remounted over
        // an old cache refetch once, and keeps hydrated server data from refetching at once.
        staleTime: 2000,
        refetchOnWindowFocus: false,
        retry: 1,
      },
    },
  });
}

let browserQueryClient: QueryClient | undefined;

/**
 * The one QueryClient factory (TanStack's getQueryClient pattern): a fresh client for every
 * server render's prefetches (handed to HydrationBoundary), and one client for the browser's
 * whole session, created on first use.
 */
export function getQueryClient(): QueryClient {
  if (isServer) return makeQueryClient();
  browserQueryClient ??= makeQueryClient();
  return browserQueryClient;
}
