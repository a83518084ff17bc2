"use client";

import { useState } from "react";
import { buttonClass } from "./button";
import { useHydrated } from "./use-hydrated";

/**
 * Copies `text` and says so in a live region, so screen readers hear it too. Disabled until the
 * page hydrates: before that a click could not reach the clipboard and would silently do nothing.
 */
export function CopyButton({ text, label = "Copy", className = "" }: { text: string; label?: string; className?: string }) {
  const [status, setStatus] = useState<"idle" | "copied" | "failed">("idle");
  const hydrated = useHydrated();

  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setStatus("copied");
    } catch {
      setStatus("failed");
    }
    setTimeout(() => setStatus("idle"), 2000);
  }

  return (
    <button type="button" onClick={copy} disabled={!hydrated} className={buttonClass("secondary", className)}>
      <span aria-live="polite">{status === "copied" ? "Copied" : status === "failed" ? "Copy failed: select and copy" : label}</span>
    </button>
  );
}
