"use client";

import { CopyButton } from "./copy-button";

/**
 * A secret the server shows exactly once (a new token, a webhook's signing secret), with a copy
 * button and the warning that it will not be shown again.
 */
export function ShownOnce({ message, value, testId, copyLabel }: { message: string; value: string; testId: string; copyLabel: string }) {
  return (
    <div className="mt-4 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
      <p className="font-medium">{message}</p>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <code data-testid={testId} className="break-all rounded bg-white px-2 py-1 font-mono text-xs">
          {value}
        </code>
        <CopyButton text={value} label={copyLabel} />
      </div>
    </div>
  );
}
