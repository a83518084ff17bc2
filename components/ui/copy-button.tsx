"use client";

import { useState, useSyncExternalStore } from "react";
import { buttonClass } from "./button";

const subscribeToNothing = () => () => {};

/**
 * Copies `text` and says so in a live region, so screen readers hear it too. Disabled until the
 * page hydrates: before that a click could not reach the clipboard and would silently do nothing.
 */
export function CopyButton({ text, label = "Copy", className = "" }: { text: string; label?: string; className?: string }) {
  const [status, setStatus] = useState<"idle" | "copied" | "failed">("idle");
  const hydrated = useSyncExternalStore(
    subscribeToNothing,
    () => true,
    () => false,
  );

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
