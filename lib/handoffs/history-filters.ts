/**
 * The history's filters, one field schema each, written once: the domain validates a door's
 * filters with them (find-handoffs.ts) and the desk parses and writes its URL with them
 * (lib/queries.ts). Client-safe.
 */
import { z } from "zod";
import { MAX_SEARCH_LENGTH } from "../search/query";
import { MAX_PAGE, wholeNumberParam } from "../validation";
import { CLIENT_SIDES, handoffStatusSchema, projectTagSchema, SOURCE_FILTERS } from "./schemas";

export const HISTORY_FILTER_FIELDS = {
  status: handoffStatusSchema,
  project: projectTagSchema,
  /** Words, "phrases" and prefix* over titles, entries and kept summaries (lib/search/query.ts). */
  q: z
    .string({ error: "search must be text" })
    .trim()
    .min(1)
    .max(MAX_SEARCH_LENGTH, { error: `search must be at most ${MAX_SEARCH_LENGTH} characters` }),
  source: z.enum(SOURCE_FILTERS, { error: `source must be one of ${SOURCE_FILTERS.join(", ")}` }),
  /** Only handoffs with entries that side has not read. */
  unread: z.enum(CLIENT_SIDES, { error: 'unread must be "chat" or "code"' }),
  page: wholeNumberParam("page", 1, MAX_PAGE),
};
