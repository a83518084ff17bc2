import type { Metadata, Viewport } from "next";
import { connection } from "next/server";
import type { ReactNode } from "react";
import { MainNav } from "@/components/main-nav";
import { currentCaller } from "@/lib/caller";
import "./globals.css";
import { Providers } from "./providers";

export const metadata: Metadata = {
  title: { default: "Baton", template: "%s · Baton" },
  description: "Handoffs between AI agents: threads, continuity chains and the formats other tools write.",
};

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Every page renders per request: the caller differs, and the CSP nonce (lib/server) is per request.
  await connection();
  const who = currentCaller().who;
  const signedInAs = who.kind === "session" || who.kind === "token" ? who.name : null;
  return (
    <html lang="en">
      <body className="min-h-screen">
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:shadow"
        >
          Skip to content
        </a>
        <Providers>
          <MainNav signedInAs={signedInAs} />
          <main id="main" className="mx-auto w-full max-w-6xl px-4 pb-16 pt-6 sm:px-6">
            {children}
          </main>
        </Providers>
      </body>
    </html>
  );
}
