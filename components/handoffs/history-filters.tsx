"use client";

import { usePathname, useSearchParams } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { buttonClass } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { FORMAT_LABELS } from "@/lib/formats/types";
import { SOURCE_FORMATS } from "@/lib/handoffs/schemas";
import { historyFiltersFrom, historySearch, type HistoryFilters } from "@/lib/queries";
import { MAX_SEARCH_LENGTH } from "@/lib/search/query";

const SOURCE_OPTIONS = [
  { value: "native", label: "Started in Baton" },
  ...SOURCE_FORMATS.map((format) => ({ value: format, label: FORMAT_LABELS[format] })),
];

const UNREAD_OPTIONS = [
  { value: "chat", label: "Unread for chat" },
  { value: "code", label: "Unread for code" },
];

/** Typing settles for this long before the results follow. */
const TYPING_PAUSE_MS = 250;

/** The desk's filters as the address has them now. */
export function useHistoryFilters(): HistoryFilters {
  return historyFiltersFrom(Object.fromEntries(useSearchParams()));
}

/**
 * Puts filters in the address without a server round trip (Next keeps useSearchParams in step
 * with the History API). The first search from the plain list is a new history entry, so Back
 * returns to the list; refining it replaces the entry, so Back does not replay every keystroke.
 */
function showFilters(pathname: string, next: HistoryFilters, current: HistoryFilters) {
  const url = `${pathname}${historySearch({ ...next, page: undefined })}`;
  const wasFiltered = Object.values({ ...current, page: undefined }).some((value) => value !== undefined);
  if (wasFiltered) window.history.replaceState(null, "", url);
  else window.history.pushState(null, "", url);
}

/** The search `q` into the address, unless it has it already or is being given it (`typed`). */
function showSearch(q: string, pathname: string, filters: HistoryFilters, typed: { current: string }) {
  if (q === typed.current) return;
  typed.current = q;
  showFilters(pathname, { ...filters, q: q || undefined }, filters);
}

function Select({ name, label, value, anyLabel, options, onChange }: {
  name: keyof HistoryFilters;
  label: string;
  value: string | undefined;
  anyLabel: string;
  options: { value: string; label: string }[];
  onChange: (name: keyof HistoryFilters, value: string) => void;
}) {
  const id = `filter-${name}`;
  return (
    <div className="flex min-w-0 flex-col gap-1">
      <label htmlFor={id} className="text-xs font-medium text-slate-700">
        {label}
      </label>
      <select id={id} name={name} value={value ?? ""} onChange={(event) => onChange(name, event.target.value)} className={`${inputClass} sm:w-auto`}>
        <option value="">{anyLabel}</option>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/**
 * The desk's search box and filters, at the top of the page: results follow as you type (after a
 * short pause) and as a filter changes, with no Apply; `/` focuses the box. The address keeps the
 * filters, so a search can be bookmarked, shared and left with Back.
 */
export function HistoryFiltersForm({ projects }: { projects: string[] }) {
  const pathname = usePathname();
  const filters = useHistoryFilters();
  const [text, setText] = useState(filters.q ?? "");
  const typed = useRef(filters.q ?? "");
  // Back and Forward change the address: the box follows it.
  useEffect(() => {
    if ((filters.q ?? "") !== typed.current) {
      typed.current = filters.q ?? "";
      setText(typed.current);
    }
  }, [filters.q]);
  // `typed` is the search the address has or is being given: the address follows a History call
  // only once Next has caught up, and a timer set before then would give it the search again
  // (a second pushState during a navigation the operator started cancels that navigation).
  useEffect(() => {
    const q = text.trim();
    if (q === typed.current) return;
    const timer = setTimeout(() => showSearch(q, pathname, filters, typed), TYPING_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [text, filters, pathname]);
  // Leaving the box (a click on a link) ends the pause: the address gets the search now, before the
  // navigation the click starts, not in the middle of it, which would pull the page back to the desk.
  const settle = () => showSearch(text.trim(), pathname, filters, typed);
  const change = (name: keyof HistoryFilters, value: string) => {
    typed.current = text.trim();
    showFilters(pathname, { ...filters, q: text.trim() || undefined, [name]: value || undefined }, filters);
  };
  const filtered = Object.entries(filters).some(([key, value]) => key !== "page" && value !== undefined);
  return (
    <section role="search" aria-label="Search handoffs" className="mb-4 flex flex-col gap-2">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          showSearch(text.trim(), pathname, filters, typed);
        }}
        // Two filters a line on a phone, so the results start high on the screen.
        className="grid grid-cols-2 items-end gap-2 sm:flex sm:flex-row sm:flex-wrap"
      >
        <div className="col-span-2 flex min-w-0 flex-1 flex-col gap-1 sm:min-w-64">
          <label htmlFor="filter-q" className="text-xs font-medium text-slate-700">
            Search titles and entries <kbd className="ml-1 rounded border border-slate-300 px-1 font-mono text-[0.7rem] text-slate-600">/</kbd>
          </label>
          <input
            id="filter-q"
            name="q"
            type="search"
            value={text}
            onChange={(event) => setText(event.target.value)}
            onBlur={settle}
            maxLength={MAX_SEARCH_LENGTH}
            autoComplete="off"
            placeholder='e.g. jwt, "refresh token", migr*'
            aria-describedby="filter-q-help"
            className={inputClass}
          />
        </div>
        <Select name="status" label="Status" value={filters.status} anyLabel="Any status" options={[{ value: "active", label: "Active" }, { value: "completed", label: "Completed" }]} onChange={change} />
        <Select name="unread" label="Unread" value={filters.unread} anyLabel="Read or not" options={UNREAD_OPTIONS} onChange={change} />
        <Select name="project" label="Project" value={filters.project} anyLabel="Any project" options={projects.map((project) => ({ value: project, label: project }))} onChange={change} />
        <Select name="source" label="Source" value={filters.source} anyLabel="Any source" options={SOURCE_OPTIONS} onChange={change} />
        {filtered && (
          <button
            type="button"
            onClick={() => {
              typed.current = "";
              setText("");
              window.history.pushState(null, "", pathname);
            }}
            className={buttonClass("ghost")}
          >
            Clear
          </button>
        )}
      </form>
      <p id="filter-q-help" className="text-xs text-slate-600">
        Every word in one entry or in the title: &quot;quotes&quot; for a phrase, a * after three letters or more for a prefix.
      </p>
    </section>
  );
}
