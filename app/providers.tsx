"use client";

import { QueryClientProvider } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { getQueryClient } from "@/lib/query-client";

/** The one client-side provider: TanStack Query, kept current by the live change stream (components/live). */
export function Providers({ children }: { children: ReactNode }) {
  // Not useState: a render suspended before its first commit would drop the client; the factory keeps one per browser.
  const queryClient = getQueryClient();
  return <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>;
}
