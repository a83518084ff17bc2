"use client";

import { inputClass } from "@/components/ui/field";
import { FilterForm, FilterSelect, plainOptions } from "@/components/ui/filter-form";
import { FORMAT_LABELS, SOURCE_FORMATS } from "@/lib/formats/types";
import type { HistoryFilters } from "@/lib/queries";

const SOURCE_OPTIONS = [
  { value: "native", label: "Started in Baton" },
  ...SOURCE_FORMATS.map((format) => ({ value: format, label: FORMAT_LABELS[format] })),
];

export function HistoryFiltersForm({ filters, projects }: { filters: HistoryFilters; projects: string[] }) {
  return (
    <FilterForm action="/" label="Filter handoffs" filters={filters}>
      <div className="flex flex-1 flex-col gap-1 sm:min-w-56">
        <label htmlFor="filter-q" className="text-xs font-medium text-slate-700">
          Search titles
        </label>
        <input id="filter-q" name="q" type="search" defaultValue={filters.q} placeholder="e.g. auth" className={inputClass} />
      </div>
      <FilterSelect
        name="status"
        label="Status"
        value={filters.status}
        anyLabel="Any status"
        options={[
          { value: "active", label: "Active" },
          { value: "completed", label: "Completed" },
        ]}
      />
      <FilterSelect name="project" label="Project" value={filters.project} anyLabel="Any project" options={plainOptions(projects)} />
      <FilterSelect name="source" label="Source" value={filters.source} anyLabel="Any source" options={SOURCE_OPTIONS} />
    </FilterForm>
  );
}
