"use client";

import { useRef, useState, type ReactNode } from "react";
import { CopyButton } from "./copy-button";

/** Longer blocks fold to this many lines, with "Show all". */
export const FOLDED_LINES = 25;

/**
 * A fenced code block of an entry: scrolls sideways inside itself (focusable, so the keyboard can
 * scroll it too), copies with one click, and folds past FOLDED_LINES lines. Copy sits in a row of
 * its own above the code: floated over it, it hid the first line's end on a phone.
 */
export function CodeBlock({ text, children }: { text: string; children: ReactNode }) {
  const lines = text.replace(/\n$/, "").split("\n").length;
  const [open, setOpen] = useState(lines <= FOLDED_LINES);
  const code = useRef<HTMLPreElement>(null);
  // "Show all" goes once used; focus moves to the code it unfolded instead of falling to the page.
  const showAll = () => {
    setOpen(true);
    code.current?.focus();
  };
  return (
    <div className="my-2 first:mt-0 last:mb-0" data-code-lines={lines}>
      <div className="mb-1 flex justify-end">
        <CopyButton text={text} label="Copy" className="px-2 py-0.5 text-xs" />
      </div>
      <pre ref={code} tabIndex={0} data-folded={open ? undefined : "true"} className={open ? "my-0!" : "my-0! max-h-[25lh] overflow-y-hidden"}>
        {children}
      </pre>
      {!open && (
        <button type="button" onClick={showAll} className="mt-1 text-xs font-semibold text-indigo-700 underline">
          Show all {lines} lines
        </button>
      )}
    </div>
  );
}
