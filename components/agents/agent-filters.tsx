"use client";

import { FilterForm, FilterSelect, plainOptions } from "@/components/ui/filter-form";
import type { AgentFilters } from "@/lib/agents/agent-filters";

export function AgentFiltersForm({ filters, personas, projects }: { filters: AgentFilters; personas: string[]; projects: string[] }) {
  return (
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
  );
}
