"use client";

import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useDeferredValue, useId, useRef, useState, type KeyboardEvent } from "react";
import { useHotkeys } from "react-hotkeys-hook";
import { resultHref } from "@/components/handoffs/history-list";
import { behindAModal } from "@/components/keyboard-shortcuts";
import { inputClass } from "@/components/ui/field";
import type { AgentPage } from "@/lib/agents";
import type { HandoffPage } from "@/lib/handoffs";
import { extractHandoffId } from "@/lib/handoffs/handoff-ref";
import { MAX_SEARCH_LENGTH } from "@/lib/search/query";
import { visibleBidiControls } from "@/lib/validation";

/** The overlay's id: the navigation's search button opens it too. */
export const PALETTE_DIALOG_ID = "command-palette";

const PAGES = [
  { label: "Handoffs (the desk)", href: "/" },
  { label: "New handoff", href: "/handoffs/new" },
  { label: "Agents", href: "/agents" },
  { label: "Register an agent", href: "/agents/new" },
  { label: "Import a handoff", href: "/import" },
  { label: "Connect Claude", href: "/connect" },
  { label: "Access tokens", href: "/settings/tokens" },
  { label: "Webhooks", href: "/settings/webhooks" },
];

type Item = { key: string; group: string; label: string; detail?: string; href: string };

async function getJson<T>(url: string): Promise<T | null> {
  const response = await fetch(url, { headers: { accept: "application/json" } });
  // A query the search refuses (a stray quote) lists nothing rather than failing the palette.
  return response.ok ? ((await response.json()) as T) : null;
}

/**
 * What the palette offers for `query`: an ID it holds, matching handoffs, agents and pages, and a
 * full search; `note` says why a query longer than the search takes offers no search (choosing it
 * led to the search's refusal).
 */
function useItems(query: string, open: boolean): { items: Item[]; note: string | null } {
  const text = useDeferredValue(query.trim());
  const searchable = text.length <= MAX_SEARCH_LENGTH;
  // No placeholder from the previous query while the answer to this one is on its way: its
  // handoffs were listed as matches of what was typed, and Enter opened one that did not match.
  const handoffs = useQuery({
    queryKey: ["palette", "handoffs", text],
    queryFn: () => getJson<HandoffPage>(`/api/handoffs?${new URLSearchParams({ q: text, perPage: "6" })}`),
    enabled: open && text.length >= 2 && searchable,
    staleTime: 5_000,
  });
  // The server matches: every agent's record would weigh megabytes (and /api/agents pages 50 at most).
  const agents = useQuery({
    queryKey: ["palette", "agents", text],
    queryFn: () => getJson<AgentPage>(`/api/agents?${new URLSearchParams({ q: text, perPage: "5" })}`),
    enabled: open && text.length >= 1,
    staleTime: 5_000,
  });
  const lower = text.toLowerCase();
  const items: Item[] = [];
  const id = extractHandoffId(text);
  if (id) items.push({ key: `id-${id}`, group: "Open", label: `Open ${id}`, href: `/handoffs/${id}` });
  for (const page of PAGES.filter((page) => !lower || page.label.toLowerCase().includes(lower))) items.push({ key: `page-${page.href}`, group: "Pages", ...page });
  if (text.length >= 2 && searchable) {
    for (const item of handoffs.data?.items ?? []) {
      const excerpt = item.match?.excerpt;
      items.push({
        key: `handoff-${item.id}`,
        group: "Handoffs",
        label: visibleBidiControls(item.title),
        detail: excerpt?.in === "entry" ? `#${excerpt.number}` : item.project ?? undefined,
        href: resultHref(item.id, excerpt),
      });
    }
  }
  for (const agent of text ? (agents.data?.items ?? []) : []) {
    items.push({ key: `agent-${agent.id}`, group: "Agents", label: visibleBidiControls(agent.name), detail: `${agent.shortId} · ${agent.status}`, href: `/agents/${agent.id}` });
  }
  if (text && searchable) items.push({ key: "search", group: "Search", label: `Search every handoff for “${text}”`, href: `/?${new URLSearchParams({ q: text })}` });
  const note = searchable ? null : `A search takes at most ${MAX_SEARCH_LENGTH} characters (this is ${text.length}): shorten it to search every handoff.`;
  return { items, note };
}

/**
 * ⌘K / Ctrl+K: one box to jump anywhere: a pasted handoff ID, a handoff by title or by words in
 * its entries (opened at the matching entry), an agent, a page. Arrow keys choose, Enter opens.
 */
export function CommandPalette() {
  const router = useRouter();
  const dialog = useRef<HTMLDialogElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const listId = useId();
  const { items, note } = useItems(query, open);
  const chosen = Math.min(active, Math.max(0, items.length - 1));

  useHotkeys(
    "mod+k",
    () => {
      if (dialog.current?.open) return dialog.current.close();
      // Over another dialog (End shift), a jump would leave the page and drop what was typed there.
      if (behindAModal()) return;
      setQuery("");
      setActive(0);
      dialog.current?.showModal();
      setOpen(true);
      input.current?.focus();
    },
    { enableOnFormTags: true, preventDefault: true },
  );

  function go(item: Item | undefined) {
    if (!item) return;
    dialog.current?.close();
    router.push(item.href);
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((chosen + step + items.length) % Math.max(1, items.length));
    } else if (event.key === "Enter") {
      event.preventDefault();
      go(items[chosen]);
    }
  }

  return (
    <dialog
      ref={dialog}
      id={PALETTE_DIALOG_ID}
      aria-label="Jump to"
      onClose={() => setOpen(false)}
      // A click on the backdrop (the dialog itself, outside its box) closes it.
      onClick={(event) => event.target === dialog.current && dialog.current.close()}
      className="mx-auto mt-[10vh] w-[min(40rem,calc(100vw-2rem))] rounded-lg border border-slate-300 bg-white p-0 text-slate-900 shadow-2xl backdrop:bg-slate-900/40"
    >
      <div className="border-b border-slate-200 p-3">
        <input
          ref={input}
          type="text"
          role="combobox"
          aria-expanded="true"
          aria-controls={listId}
          aria-activedescendant={items[chosen] ? `${listId}-${chosen}` : undefined}
          aria-label="Jump to a handoff, an agent or a page"
          placeholder="Handoff ID, title, words in an entry, agent or page…"
          value={query}
          onChange={(event) => {
            setQuery(event.target.value);
            setActive(0);
          }}
          onKeyDown={onKeyDown}
          className={inputClass}
        />
      </div>
      <ul id={listId} role="listbox" aria-label="Results" data-testid="palette-results" className="max-h-[60vh] overflow-y-auto py-1">
        {items.map((item, index) => {
          const heading = index === 0 || items[index - 1].group !== item.group ? item.group : null;
          return (
            <li key={item.key} role="presentation">
              {heading && <p className="px-3 pt-2 pb-1 text-xs font-semibold text-slate-600 uppercase">{heading}</p>}
              <div
                id={`${listId}-${index}`}
                role="option"
                aria-selected={index === chosen}
                onMouseMove={() => setActive(index)}
                onClick={() => go(item)}
                className={`mx-1 flex cursor-pointer items-baseline justify-between gap-3 rounded px-2 py-1.5 text-sm ${index === chosen ? "bg-indigo-50 text-indigo-900" : "text-slate-800"}`}
              >
                <span className="min-w-0 truncate">{item.label}</span>
                {item.detail && <span className="shrink-0 font-mono text-xs text-slate-600">{item.detail}</span>}
              </div>
            </li>
          );
        })}
        {items.length === 0 && <li className="px-3 py-2 text-sm text-slate-600">Nothing matches.</li>}
      </ul>
      {note && (
        <p role="status" data-testid="palette-note" className="border-t border-slate-200 px-3 py-1.5 text-sm text-slate-700">
          {note}
        </p>
      )}
      <p className="border-t border-slate-200 px-3 py-1.5 text-xs text-slate-600">↑ ↓ to choose · Enter to open · Esc to close</p>
    </dialog>
  );
}
