"use client";

import { useCallback, type RefCallback } from "react";

/**
 * Makes a <details> drop-down menu dismissable the way menus are expected to be, which native
 * <details> is not (an open one stays over whatever it covers until its summary is clicked again):
 * - Escape closes it and returns focus to its <summary>;
 * - a pointer press or focus anywhere outside it closes it (focus stays where it went).
 *
 * Usage in a client component: `const ref = useDismissableDetails();` then `<details ref={ref}>`.
 * Your own onToggle keeps working (closing sets `open`, which fires "toggle").
 * From a server component, use <DismissableDetails> (components/ui/dismissable-details.tsx).
 */
export function useDismissableDetails(): RefCallback<HTMLDetailsElement> {
  return useCallback((details: HTMLDetailsElement | null) => {
    if (!details) return;
    const isOutside = (target: EventTarget | null) => !(target instanceof Node && details.contains(target));
    const closeIfOutside = (event: Event) => {
      if (details.open && isOutside(event.target)) details.open = false;
    };
    const closeOnEscape = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || !details.open || event.defaultPrevented) return;
      // Handled here: an Escape that closes the menu must not also close a dialog around it.
      event.preventDefault();
      details.open = false;
      details.querySelector<HTMLElement>(":scope > summary")?.focus();
    };
    document.addEventListener("pointerdown", closeIfOutside);
    document.addEventListener("focusin", closeIfOutside);
    document.addEventListener("keydown", closeOnEscape);
    return () => {
      document.removeEventListener("pointerdown", closeIfOutside);
      document.removeEventListener("focusin", closeIfOutside);
      document.removeEventListener("keydown", closeOnEscape);
    };
  }, []);
}
