"use client";

import { useEffect, useState } from "react";

/** Whether the element with `id` is on screen (false until measured, and when it is missing). */
function useOnScreen(id: string | null): boolean {
  const [onScreen, setOnScreen] = useState(true);
  useEffect(() => {
    const target = id ? document.getElementById(id) : null;
    if (!target) return;
    const observer = new IntersectionObserver(([entry]) => setOnScreen(entry.isIntersecting));
    observer.observe(target);
    return () => observer.disconnect();
  }, [id]);
  return onScreen;
}

/**
 * A floating "jump to new / latest" control, shown while the latest entry is off screen: a long
 * thread can be read from anywhere and left again in one click. Plain anchors, so the address
 * keeps the place.
 */
export function JumpControls({ firstNewNumber, latestNumber, newCount }: { firstNewNumber: number | null; latestNumber: number; newCount: number }) {
  const latestOnScreen = useOnScreen(`entry-${latestNumber}`);
  const firstNewOnScreen = useOnScreen(firstNewNumber === null ? null : `entry-${firstNewNumber}`);
  if (latestOnScreen) return null;
  return (
    <nav
      aria-label="Jump in the thread"
      className="fixed right-4 bottom-4 z-10 flex gap-1 rounded-full border border-slate-300 bg-white p-1 text-sm shadow-lg"
    >
      {firstNewNumber !== null && !firstNewOnScreen && (
        <a href={`#entry-${firstNewNumber}`} className="rounded-full px-3 py-1 font-medium text-amber-900 hover:bg-amber-50">
          {newCount} new
        </a>
      )}
      <a href={`#entry-${latestNumber}`} className="rounded-full px-3 py-1 font-medium text-indigo-700 hover:bg-indigo-50">
        Latest
      </a>
    </nav>
  );
}
