"use client";

import { usePathname, useSearchParams } from "next/navigation";
import { useEffect, useState } from "react";

/** A navigation that answers sooner than this shows nothing: a bar that flashes is noise. */
const SHOW_AFTER_MS = 300;

/** Whether a click goes to another page of this site in this tab (what the router then loads). */
function isPageNavigation(event: MouseEvent): boolean {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return false;
  const link = (event.target as Element | null)?.closest?.("a[href]");
  if (!(link instanceof HTMLAnchorElement) || (link.target && link.target !== "_self") || link.hasAttribute("download")) return false;
  const to = new URL(link.href, window.location.href);
  const here = window.location;
  return to.origin === here.origin && (to.pathname !== here.pathname || to.search !== here.search);
}

/**
 * A thin bar at the top while a page loads for longer than SHOW_AFTER_MS: started by a click on
 * a link to another page, ended when the address changes (the new page is shown).
 */
export function NavigationProgress() {
  const pathname = usePathname();
  const search = useSearchParams().toString();
  const [started, setStarted] = useState<number | null>(null);
  const [visible, setVisible] = useState(false);
  const [shownFor, setShownFor] = useState(`${pathname}?${search}`);
  // The address changed: that navigation is over (state adjusted while rendering, as React advises over an effect).
  if (shownFor !== `${pathname}?${search}`) {
    setShownFor(`${pathname}?${search}`);
    setStarted(null);
    setVisible(false);
  }
  useEffect(() => {
    const onClick = (event: MouseEvent) => {
      if (isPageNavigation(event)) setStarted(Date.now());
    };
    document.addEventListener("click", onClick);
    return () => document.removeEventListener("click", onClick);
  }, []);
  useEffect(() => {
    if (started === null) return;
    const timer = setTimeout(() => setVisible(true), SHOW_AFTER_MS);
    return () => clearTimeout(timer);
  }, [started]);
  if (!visible) return null;
  return (
    <div role="progressbar" aria-label="Loading the page" className="fixed inset-x-0 top-0 z-50 h-0.5 overflow-hidden bg-indigo-100">
      <div className="baton-progress h-full w-1/3 animate-[baton-progress_1.2s_ease-in-out_infinite] bg-indigo-600" />
    </div>
  );
}
