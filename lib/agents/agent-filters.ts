/** The /agents page's URL filters. Client-safe: the list's links build URLs from them. */
import { projectTagSchema } from "../handoffs/schemas";
import { urlFilters, type UrlFilters } from "../url-filters";
import { MAX_PAGE, wholeNumberParam } from "../validation";
import { agentStatusSchema, personaSlugSchema } from "./schemas";

const fields = {
  status: agentStatusSchema,
  persona: personaSlugSchema,
  project: projectTagSchema,
  page: wholeNumberParam("page", 1, MAX_PAGE),
};
const agentFilters = urlFilters(fields);

/** The /agents page's filters, as they live in its URL. */
export type AgentFilters = UrlFilters<typeof fields>;

/** Filters from a URL's search params; a value that makes no sense is dropped, not fatal. */
export const agentFiltersFrom = agentFilters.parse;

/** The URL query string for filters (and an optional other page). */
export const agentSearch = agentFilters.search;
