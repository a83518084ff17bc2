"use client";

import Link from "next/link";
import { buttonClass } from "./button";

/** Body of a route's error.tsx: what happened, and a way to try again. */
export function RouteError({ error, reset, what }: { error: Error & { digest?: string }; reset: () => void; what: string }) {
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
