"use client";

import Form from "next/form";
import Link from "next/link";
import { buttonClass } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import type { AgentFilters } from "@/lib/agents";

const selectClass = `${inputClass} sm:w-auto`;

function submitOnChange(event: React.ChangeEvent<HTMLSelectElement>) {
  event.currentTarget.form?.requestSubmit();
}

/** Filters as a GET form: they live in the URL, so a filtered view can be bookmarked or shared. */
export function AgentFiltersForm({ filters, personas, projects }: { filters: AgentFilters; personas: string[]; projects: string[] }) {
  const filtered = Boolean(filters.status || filters.persona || filters.project);
  return (
    <Form key={JSON.stringify(filters)} action="/agents" className="mb-4 flex flex-col gap-2 sm:flex-row sm:flex-wrap sm:items-end" aria-label="Filter agents">
      <div className="flex flex-col gap-1">
        <label htmlFor="filter-status" className="text-xs font-medium text-slate-700">
          Status
        </label>
        <select id="filter-status" name="status" defaultValue={filters.status ?? ""} onChange={submitOnChange} className={selectClass}>
          <option value="">Any status</option>
          <option value="active">Active</option>
          <option value="ended">Ended</option>
        </select>
      </div>
      <div className="flex flex-col gap-1">
        <label htmlFor="filter-persona" className="text-xs font-medium text-slate-700">
          Persona
        </label>
        <select id="filter-persona" name="persona" defaultValue={filters.persona ?? ""} onChange={submitOnChange} className={selectClass}>
          <option value="">Any persona</option>
          {personas.map((persona) => (
            <option key={persona} value={persona}>
              {persona}
            </option>
          ))}
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
      <div className="flex gap-2">
        <button type="submit" className={buttonClass("secondary")}>
          Apply
        </button>
        {filtered && (
          <Link href="/agents" className={buttonClass("ghost")}>
            Clear
          </Link>
        )}
      </div>
    </Form>
  );
}
