"use client";

import { FilterForm, FilterSelect, plainOptions } from "@/components/ui/filter-form";
import { useHydrated } from "@/components/ui/use-hydrated";
import type { AgentFilters } from "@/lib/agents/agent-filters";

/**
 * A select applies its filter as it changes, as on the desk; the form's Apply button only serves
 * a page not yet hydrated (a native GET submit), so it is hidden once the page is.
 */
export function AgentFiltersForm({ filters, personas, projects }: { filters: AgentFilters; personas: string[]; projects: string[] }) {
  const hydrated = useHydrated();
  return (
    <div className={hydrated ? "contents [&_button[type=submit]]:hidden" : "contents"}>
      <FilterForm action="/agents" label="Filter agents" filters={filters}>
        <FilterSelect
          name="status"
          label="Status"
          value={filters.status}
          anyLabel="Any status"
          options={[
            { value: "active", label: "Active" },
            { value: "ended", label: "Ended" },
          ]}
        />
        <FilterSelect name="persona" label="Persona" value={filters.persona} anyLabel="Any persona" options={plainOptions(personas)} />
        <FilterSelect name="project" label="Project" value={filters.project} anyLabel="Any project" options={plainOptions(projects)} />
      </FilterForm>
    </div>
  );
}
