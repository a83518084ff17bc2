"use client";

import Link from "next/link";
import { unstable_isUnrecognizedActionError } from "next/navigation";
import { buttonClass } from "./button";

/**
 * Body of a route's error.tsx: what happened, and a way to try again. A button or form whose
 * server action a newer build of the server does not know (Baton upgraded or rebuilt while the tab
 * was open) lands here too: Next's own message names a hash and a documentation page, and Try
 * again would send the same unknown action, so it says so and offers a reload.
 */
export function RouteError({ error, reset, what }: { error: Error & { digest?: string }; reset: () => void; what: string }) {
  // Tested as unknown: the guard would narrow `error` itself to never below.
  if (unstable_isUnrecognizedActionError(error as unknown)) {
    return (
      <div role="alert" className="rounded-lg border border-amber-200 bg-amber-50 p-6">
        <h1 className="text-lg font-semibold text-amber-900">Baton was updated after this page was loaded</h1>
        <p className="mt-1 text-sm text-amber-900">Nothing was done: this page belongs to the version before. Reload it, then do it again.</p>
        <div className="mt-4 flex gap-2">
          <button type="button" onClick={() => window.location.reload()} className={buttonClass("primary")}>
            Reload
          </button>
        </div>
      </div>
    );
  }
  return (
    <div role="alert" className="rounded-lg border border-red-200 bg-red-50 p-6">
      <h1 className="text-lg font-semibold text-red-900">Could not load {what}</h1>
      <p className="mt-1 text-sm text-red-800">{error.message || "Something went wrong on the server."}</p>
      {error.digest && <p className="mt-1 text-xs text-red-700">Reference: {error.digest}</p>}
      <div className="mt-4 flex gap-2">
        <button type="button" onClick={reset} className={buttonClass("primary")}>
          Try again
        </button>
        <Link href="/" className={buttonClass("secondary")}>
          All handoffs
        </Link>
      </div>
    </div>
  );
}
