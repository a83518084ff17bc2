"use client";

import { usePathname, useRouter } from "next/navigation";
import { useEffect, useRef } from "react";
import { useHotkeys } from "react-hotkeys-hook";
import { buttonClass } from "@/components/ui/button";

/** The overlay's id: the navigation's "Keyboard shortcuts" button opens it too (an invoker command, no script needed). */
export const SHORTCUTS_DIALOG_ID = "keyboard-shortcuts";

const SHORTCUTS: { keys: string[]; does: string }[] = [
  { keys: ["/"], does: "Search handoffs" },
  { keys: ["g", "h"], does: "Go to handoffs (the desk)" },
  { keys: ["g", "a"], does: "Go to agents" },
  { keys: ["c"], does: "Create a new handoff" },
  { keys: ["Ctrl", "K"], does: "Jump to a handoff, an agent or a page (⌘ K on a Mac)" },
  { keys: ["j"], does: "Next entry of a thread" },
  { keys: ["k"], does: "Previous entry of a thread" },
  { keys: ["r"], does: "Reply to the focused question" },
  { keys: ["e"], does: "Done with the focused row of Needs you now" },
  { keys: ["Ctrl", "Enter"], does: "Post the entry you are writing (⌘ Enter on a Mac)" },
  { keys: ["?"], does: "Show these shortcuts" },
];

/** The history's search box: its field is the URL's `q`. */
const searchBox = () => document.querySelector<HTMLInputElement>('input[name="q"]');

/**
 * `j`/`k`: from the entry that has focus to the next or previous one; without one, from where the
 * reader is (the first entry whose top is in the window is next, the one before it previous).
 */
function moveBetweenEntries(step: 1 | -1): void {
  const entries = [...document.querySelectorAll<HTMLElement>("li[data-seq]")];
  if (entries.length === 0) return;
  const focused = entries.findIndex((entry) => entry.contains(document.activeElement));
  let index: number;
  if (focused >= 0) index = focused + step;
  else {
    const below = entries.findIndex((entry) => entry.getBoundingClientRect().top >= 0);
    const next = below === -1 ? entries.length : below;
    index = step === 1 ? next : next - 1;
  }
  const target = entries[Math.min(entries.length - 1, Math.max(0, index))];
  target.focus({ preventScroll: true });
  target.scrollIntoView({ block: "start" });
}

/**
 * A modal dialog (End shift, a confirmation) covers the page: a shortcut would act behind it, and
 * a page it navigated to would drop what was typed in the dialog.
 */
export const behindAModal = () => document.querySelector("dialog:modal") !== null;

/**
 * Keyboard shortcuts for the whole desk (react-hotkeys-hook; none fires while typing in a field),
 * and the `?` overlay that lists them.
 */
export function KeyboardShortcuts() {
  const router = useRouter();
  const pathname = usePathname();
  const dialog = useRef<HTMLDialogElement>(null);
  // `/` away from the history goes there first; the box is focused once the page shows it.
  const searchWanted = useRef(false);

  const onThePage = (event: KeyboardEvent) => !event.ctrlKey && !event.metaKey && !event.altKey && !behindAModal();
  const typed = { useKey: true, ignoreModifiers: true, enabled: onThePage, preventDefault: true } as const;

  useHotkeys(
    "/",
    () => {
      const box = searchBox();
      if (box) return box.focus();
      searchWanted.current = true;
      router.push("/");
    },
    typed,
  );
  useHotkeys("?", () => dialog.current?.showModal(), typed);
  // A sequence's `enabled` is not consulted by react-hotkeys-hook: these ask themselves.
  useHotkeys("g>h", () => !behindAModal() && router.push("/"));
  useHotkeys("g>a", () => !behindAModal() && router.push("/agents"));
  useHotkeys("c", () => router.push("/handoffs/new"), { enabled: onThePage });
  useHotkeys("j", () => moveBetweenEntries(1), { enabled: onThePage });
  useHotkeys("k", () => moveBetweenEntries(-1), { enabled: onThePage });
  useHotkeys("r", () => document.activeElement?.closest("li[data-number]")?.querySelector<HTMLButtonElement>("button[data-reply]")?.click(), typed);

  useEffect(() => {
    if (!searchWanted.current || pathname !== "/") return;
    // The history streams in after the page: look for its box for a few seconds.
    const deadline = Date.now() + 5_000;
    const timer = setInterval(() => {
      const box = searchBox();
      if (box || Date.now() > deadline) {
        clearInterval(timer);
        searchWanted.current = false;
        box?.focus();
      }
    }, 100);
    return () => clearInterval(timer);
  }, [pathname]);

  return (
    <dialog
      ref={dialog}
      id={SHORTCUTS_DIALOG_ID}
      aria-labelledby="shortcuts-heading"
      className="m-auto w-[min(30rem,calc(100vw-2rem))] rounded-lg border border-slate-200 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-slate-900/40"
    >
      <div className="flex flex-col gap-4 p-5">
        <h2 id="shortcuts-heading" className="text-lg font-semibold">
          Keyboard shortcuts
        </h2>
        <dl className="grid grid-cols-[max-content_1fr] items-center gap-x-4 gap-y-2 text-sm">
          {SHORTCUTS.map((shortcut) => (
            <div key={shortcut.does} className="contents">
              <dt className="flex gap-1">
                {shortcut.keys.map((key) => (
                  <kbd key={key} className="rounded border border-slate-300 bg-slate-100 px-1.5 py-0.5 font-mono text-xs text-slate-800">
                    {key}
                  </kbd>
                ))}
              </dt>
              <dd className="text-slate-700">{shortcut.does}</dd>
            </div>
          ))}
        </dl>
        <p className="text-xs text-slate-600">Shortcuts wait while you type in a field.</p>
        <div className="flex justify-end">
          <button type="button" commandfor={SHORTCUTS_DIALOG_ID} command="close" onClick={() => dialog.current?.close()} className={buttonClass("secondary")}>
            Close
          </button>
        </div>
      </div>
    </dialog>
  );
}
