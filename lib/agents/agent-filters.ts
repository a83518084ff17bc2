import { z } from "zod";
import { MAX_PAGE, wholeNumberParam } from "../validation";
import { AGENT_STATUSES, PERSONA_SLUG_PATTERN } from "./schemas";

const agentFiltersSchema = z.object({
  status: z.enum(AGENT_STATUSES).optional().catch(undefined),
  persona: z.string().max(64).regex(PERSONA_SLUG_PATTERN).optional().catch(undefined),
  project: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/).optional().catch(undefined),
  page: wholeNumberParam("page", 1, MAX_PAGE).catch(undefined),
});

/** The /agents page's filters, as they live in its URL. */
export type AgentFilters = z.infer<typeof agentFiltersSchema>;

/** Filters from a URL's search params; a value that makes no sense is dropped, not fatal. */
export function agentFiltersFrom(params: Record<string, string | string[] | undefined>): AgentFilters {
  const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value) || undefined;
  const parsed = agentFiltersSchema.parse({
    status: first(params.status),
    persona: first(params.persona),
    project: first(params.project),
    page: first(params.page),
  });
  return Object.fromEntries(Object.entries(parsed).filter(([, value]) => value !== undefined)) as AgentFilters;
}

/** The URL query string for filters (and an optional other page). */
export function agentSearch(filters: AgentFilters, page = filters.page): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...filters, page: page && page > 1 ? page : undefined })) {
    if (value !== undefined) params.set(key, String(value));
  }
  const search = params.toString();
  return search ? `?${search}` : "";
}
