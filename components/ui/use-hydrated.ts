"use client";

import { useSyncExternalStore } from "react";

const subscribeToNothing = () => () => {};

/** False in the server render and during hydration, true after: for what only the browser knows (clipboard, the chosen theme). */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribeToNothing,
    () => true,
    () => false,
  );
}
