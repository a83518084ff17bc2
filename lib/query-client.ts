/**
 * The one TanStack QueryClient factory: a fresh client per server render, one per browser tab.
 * Client-safe.
 */
import { isServer, QueryClient } from "@tanstack/react-query";

function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // Open pages stay current by push (components/live invalidates what a change touches,
        // from the seq the server read before rendering), so nothing refetches on a timer or on
        // focus, and what a server render hydrated needs no second fetch while the page hydrates:
        // on a loaded 2-core machine the desk's history list mounted 2.7 s after its server
        // fetch and, with 2 s here, fetched it again. A page remounted over an older cache
        // (navigating renders it anew on the server, which hydrates newer data) refetches once.
        staleTime: 30_000,
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
