"use client";

import { inputClass } from "@/components/ui/field";
import { FilterForm, FilterSelect, plainOptions } from "@/components/ui/filter-form";
import { FORMAT_LABELS } from "@/lib/formats/types";
import { SOURCE_FORMATS } from "@/lib/handoffs/schemas";
import type { HistoryFilters } from "@/lib/queries";
import { MAX_SEARCH_LENGTH } from "@/lib/search/query";

const SOURCE_OPTIONS = [
  { value: "native", label: "Started in Baton" },
  ...SOURCE_FORMATS.map((format) => ({ value: format, label: FORMAT_LABELS[format] })),
];

const UNREAD_OPTIONS = [
  { value: "chat", label: "Unread for chat" },
  { value: "code", label: "Unread for code" },
];

export function HistoryFiltersForm({ filters, projects }: { filters: HistoryFilters; projects: string[] }) {
  return (
    <FilterForm action="/" label="Filter handoffs" filters={filters}>
      <div className="flex flex-1 flex-col gap-1 sm:min-w-64">
        <label htmlFor="filter-q" className="text-xs font-medium text-slate-700">
          Search titles and entries
        </label>
        <input
          id="filter-q"
          name="q"
          type="search"
          defaultValue={filters.q}
          maxLength={MAX_SEARCH_LENGTH}
          placeholder='e.g. jwt, "refresh token", migr*'
          aria-describedby="filter-q-help"
          className={inputClass}
        />
      </div>
      {/* Under the search box on a phone; on a wider screen a line of its own under the row, so the fields stay aligned. */}
      <p id="filter-q-help" className="w-full text-xs text-slate-600 sm:order-last">
        Search finds every word in one entry or in the title: &quot;quotes&quot; for a phrase, a * after a word for a prefix.
      </p>
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
      <FilterSelect name="unread" label="Unread" value={filters.unread} anyLabel="Read or not" options={UNREAD_OPTIONS} />
      <FilterSelect name="project" label="Project" value={filters.project} anyLabel="Any project" options={plainOptions(projects)} />
      <FilterSelect name="source" label="Source" value={filters.source} anyLabel="Any source" options={SOURCE_OPTIONS} />
    </FilterForm>
  );
}
