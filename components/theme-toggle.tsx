"use client";

import { useTheme } from "next-themes";
import { useHydrated } from "@/components/ui/use-hydrated";

const THEMES = ["system", "light", "dark"] as const;
type ThemeChoice = (typeof THEMES)[number];

const ICONS: Record<ThemeChoice, string> = {
  // A monitor, a sun, a moon (24-unit outlines).
  system: "M4 5h16v11H4zM9 20h6M12 16v4",
  light: "M12 8a4 4 0 1 0 0 8 4 4 0 0 0 0-8zM12 2v2M12 20v2M4.9 4.9l1.4 1.4M17.7 17.7l1.4 1.4M2 12h2M20 12h2M4.9 19.1l1.4-1.4M17.7 6.3l1.4-1.4",
  dark: "M20 14.5A8 8 0 0 1 9.5 4a8 8 0 1 0 10.5 10.5z",
};

/**
 * The theme: the system's (the default), light or dark, remembered per browser by next-themes.
 * One button steps through the three; its name says the current one and the next.
 */
export function ThemeToggle() {
  const { theme, setTheme } = useTheme();
  // The remembered choice is known only in the browser: the server render shows "system".
  const hydrated = useHydrated();
  const current: ThemeChoice = hydrated && THEMES.includes(theme as ThemeChoice) ? (theme as ThemeChoice) : "system";
  const next = THEMES[(THEMES.indexOf(current) + 1) % THEMES.length];
  return (
    <button
      type="button"
      onClick={() => setTheme(next)}
      data-testid="theme-toggle"
      data-theme-choice={current}
      title={`Theme: ${current} (switch to ${next})`}
      className="inline-flex items-center gap-2 rounded-md px-2 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-100"
    >
      <svg aria-hidden viewBox="0 0 24 24" className="h-4 w-4" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
        <path d={ICONS[current]} />
      </svg>
      <span className="sm:sr-only">Theme: {current}</span>
    </button>
  );
}
