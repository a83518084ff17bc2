import { QueryClient } from "@tanstack/react-query";

/** A fresh QueryClient for one server render's prefetches (handed to HydrationBoundary). */
export function makeServerQueryClient(): QueryClient {
  return new QueryClient({ defaultOptions: { queries: { staleTime: 500 } } });
}
