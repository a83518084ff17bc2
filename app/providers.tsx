"use client";

import { QueryClientProvider } from "@tanstack/react-query";
import { ThemeProvider } from "next-themes";
import type { ReactNode } from "react";
import { z } from "zod";
import { getQueryClient } from "@/lib/query-client";

// zod compiles object parsers with `new Function` when it may; the page's CSP allows no eval,
// and its probe alone is a reported violation. The interpreted parser is as correct.
z.config({ jitless: true });

/**
 * The client-side providers: TanStack Query (kept current by the live change stream,
 * components/live) and the theme (next-themes: the system's, or the one chosen, remembered per
 * browser). next-themes sets the theme with an inline script before the page paints; `nonce`
 * lets it run under the page's Content-Security-Policy.
 */
export function Providers({ children, nonce }: { children: ReactNode; nonce: string | undefined }) {
  // Not useState: a render suspended before its first commit would drop the client; the factory keeps one per browser.
  const queryClient = getQueryClient();
  return (
    <ThemeProvider attribute="class" defaultTheme="system" enableSystem disableTransitionOnChange storageKey="baton.theme" nonce={nonce}>
      <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
    </ThemeProvider>
  );
}
