"use client";

import { useLayoutEffect, useRef, type FocusEvent, type RefObject } from "react";

type Options = {
  /** The attribute each row carries its key in (`data-handoff-id`, `data-row-key`). */
  keyAttribute: string;
  /** What takes focus in the row now in the left one's place: the element this selector finds in it, else the row itself. */
  focusIn?: string;
  /** The element that takes focus when no row is left (a heading, or the list's empty state, with tabIndex -1). */
  fallbackId: string;
};

/**
 * A row that leaves a list while focus is in it (removed by its own action, a Delete or a Done,
 * or left out of the server's next list) hands focus on: to the row now in its place, the last
 * row if it was the last, or `fallbackId` when none is left. Without it focus falls to the page's
 * top, and a keyboard starts from there. Focus that went elsewhere on purpose stays there.
 * `list` holds the rows as its children; spread the returned handlers on it.
 */
export function useFocusOutlivesRows(list: RefObject<HTMLElement | null>, shownKeys: string[], { keyAttribute, focusIn, fallbackId }: Options) {
  const focused = useRef<{ key: string; index: number } | null>(null);
  const shown = shownKeys.join("\n");
  useLayoutEffect(() => {
    const left = focused.current;
    if (!left || shown.split("\n").includes(left.key)) return;
    focused.current = null;
    if (document.activeElement && document.activeElement !== document.body) return;
    const rows = list.current?.children;
    const next = rows?.[Math.min(left.index, rows.length - 1)];
    const target = next instanceof HTMLElement ? ((focusIn ? next.querySelector<HTMLElement>(focusIn) : null) ?? next) : document.getElementById(fallbackId);
    target?.focus();
  }, [list, shown, focusIn, fallbackId]);
  return {
    onFocus: (event: FocusEvent<HTMLElement>) => {
      const rows = [...event.currentTarget.children];
      const index = rows.findIndex((row) => row.contains(event.target as Node));
      focused.current = index < 0 ? null : { key: rows[index].getAttribute(keyAttribute) ?? "", index };
    },
    onBlur: (event: FocusEvent<HTMLElement>) => {
      if (event.relatedTarget && !event.currentTarget.contains(event.relatedTarget)) focused.current = null;
    },
  };
}
