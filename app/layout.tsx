import type { Metadata, Viewport } from "next";
import { headers } from "next/headers";
import { connection } from "next/server";
import { Suspense, type ReactNode } from "react";
import { AttentionCount } from "./attention-count";
import { CommandPalette } from "@/components/command-palette";
import { KeyboardShortcuts } from "@/components/keyboard-shortcuts";
import { LiveFeed } from "@/components/live/live-feed";
import { LiveAttention } from "@/components/live/live-updates";
import { NavigationProgress } from "@/components/navigation-progress";
import { MainNav } from "@/components/main-nav";
import { currentCaller, isOperator } from "@/lib/caller";
import { latestChangeSeq } from "@/lib/changes";
import "./globals.css";
import { Providers } from "./providers";

/**
 * Every page's title, e.g. "Agents · Baton". An operator's tab puts what needs them in front of it,
 * "(3) Agents · Baton": the navigation's count does that in the browser (components/live/attention-badge.tsx),
 * so the count follows changes without the page being rendered again.
 */
export const metadata: Metadata = {
  title: { default: "Baton", template: "%s · Baton" },
  description: "Handoffs between AI agents: threads, continuity chains and the formats other tools write.",
};

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

/**
 * The nonce of this response's Content-Security-Policy, for the one inline script the page
 * needs (next-themes sets the theme before the first paint). Baton's server puts it on the
 * request, as Next reads it for its own scripts.
 */
async function cspNonce(): Promise<string | undefined> {
  const request = await headers();
  return request.get("content-security-policy")?.match(/'nonce-([^']+)'/)?.[1] ?? request.get("x-nonce") ?? undefined;
}

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Every page renders per request: the caller differs, and the CSP nonce (lib/server) is per request.
  await connection();
  const caller = currentCaller();
  const who = caller.who;
  const signedInAs = who.kind === "session" || who.kind === "token" ? who.name : null;
  const operator = isOperator(caller);
  const nonce = await cspNonce();
  // Read before the attention count: a change written while the page renders is then replayed to the tab.
  const since = await latestChangeSeq();
  return (
    // next-themes sets the theme's class on <html> before React hydrates.
    <html lang="en" suppressHydrationWarning>
      <body className="min-h-screen">
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:shadow"
        >
          Skip to content
        </a>
        <Providers nonce={nonce}>
          <LiveFeed since={since}>
            {/* The count in the navigation and the tab's title stay current on every page, not only the desk. */}
            {operator && <LiveAttention since={since} />}
            <MainNav
              operator={operator}
              signedInAs={signedInAs}
              attentionCount={
                // Streamed: the page does not wait for the attention queries.
                <Suspense fallback={null}>
                  <AttentionCount />
                </Suspense>
              }
            />
            {operator && <KeyboardShortcuts />}
            {operator && <CommandPalette />}
            <Suspense fallback={null}>
              <NavigationProgress />
            </Suspense>
            <main id="main" className="mx-auto w-full max-w-6xl px-4 pb-16 pt-6 sm:px-6">
              {children}
            </main>
          </LiveFeed>
        </Providers>
      </body>
    </html>
  );
}
