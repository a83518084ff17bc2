"use client";

import Form from "next/form";
import Link from "next/link";
import { inputClass } from "@/components/ui/field";
import { buttonClass } from "@/components/ui/button";
import type { HistoryFilters } from "@/lib/queries";
import { sourceLabel } from "./handoff-badges";

const selectClass = `${inputClass} sm:w-auto`;

function submitOnChange(event: React.ChangeEvent<HTMLSelectElement>) {
  event.currentTarget.form?.requestSubmit();
}

/** Filters as a GET form: they live in the URL, so a filtered view can be bookmarked or shared. */
export function HistoryFiltersForm({ filters, projects }: { filters: HistoryFilters; projects: string[] }) {
  const filtered = Boolean(filters.status || filters.project || filters.q || filters.source);
  return (
    <Form key={JSON.stringify(filters)} action="/" className="mb-4 flex flex-col gap-2 sm:flex-row sm:flex-wrap sm:items-end" aria-label="Filter handoffs">
      <div className="flex flex-1 flex-col gap-1 sm:min-w-56">
        <label htmlFor="filter-q" className="text-xs font-medium text-slate-700">
          Search titles
        </label>
        <input id="filter-q" name="q" type="search" defaultValue={filters.q} placeholder="e.g. auth" className={inputClass} />
      </div>
      <div className="flex flex-col gap-1">
        <label htmlFor="filter-status" className="text-xs font-medium text-slate-700">
          Status
        </label>
        <select id="filter-status" name="status" defaultValue={filters.status ?? ""} onChange={submitOnChange} className={selectClass}>
          <option value="">Any status</option>
          <option value="active">Active</option>
          <option value="completed">Completed</option>
        </select>
      </div>
      <div className="flex flex-col gap-1">
        <label htmlFor="filter-project" className="text-xs font-medium text-slate-700">
          Project
        </label>
        <select id="filter-project" name="project" defaultValue={filters.project ?? ""} onChange={submitOnChange} className={selectClass}>
          <option value="">Any project</option>
          {projects.map((project) => (
            <option key={project} value={project}>
              {project}
            </option>
          ))}
        </select>
      </div>
      <div className="flex flex-col gap-1">
        <label htmlFor="filter-source" className="text-xs font-medium text-slate-700">
          Source
        </label>
        <select id="filter-source" name="source" defaultValue={filters.source ?? ""} onChange={submitOnChange} className={selectClass}>
          <option value="">Any source</option>
          <option value="native">Started in Baton</option>
          {(["bundle", "handoff_json", "handoff_yaml"] as const).map((format) => (
            <option key={format} value={format}>
              {sourceLabel(format)}
            </option>
          ))}
        </select>
      </div>
      <div className="flex gap-2">
        <button type="submit" className={buttonClass("secondary")}>
          Apply
        </button>
        {filtered && (
          <Link href="/" className={buttonClass("ghost")}>
            Clear
          </Link>
        )}
      </div>
    </Form>
  );
}
