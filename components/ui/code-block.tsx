"use client";

import { useState, type ReactNode } from "react";
import { CopyButton } from "./copy-button";

/** Longer blocks fold to this many lines, with "Show all". */
export const FOLDED_LINES = 25;

/**
 * A fenced code block of an entry: scrolls sideways inside itself (focusable, so the keyboard can
 * scroll it too), copies with one click, and folds past FOLDED_LINES lines.
 */
export function CodeBlock({ text, children }: { text: string; children: ReactNode }) {
  const lines = text.replace(/\n$/, "").split("\n").length;
  const [open, setOpen] = useState(lines <= FOLDED_LINES);
  return (
    <div className="group relative" data-code-lines={lines}>
      <pre tabIndex={0} data-folded={open ? undefined : "true"} className={open ? undefined : "max-h-[25lh] overflow-y-hidden"}>
        {children}
      </pre>
      <div className="absolute top-1.5 right-1.5 opacity-80 group-focus-within:opacity-100 group-hover:opacity-100">
        <CopyButton text={text} label="Copy" className="px-2 py-0.5 text-xs" />
      </div>
      {!open && (
        <button type="button" onClick={() => setOpen(true)} className="mt-1 text-xs font-semibold text-indigo-700 underline">
          Show all {lines} lines
        </button>
      )}
    </div>
  );
}
