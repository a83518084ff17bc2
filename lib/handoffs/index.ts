/**
 * Handoffs (threads) and their entries: the seed's five operations and the history. Owns the
 * `handoffs` and `handoff_entries` tables; store.ts holds the only SQL that writes them
 * (through lib/database, on either engine), and its functions take the caller's transaction so
 * imports, checkpoints and archives compose them. Client code imports schemas.ts, limits.ts and views.ts
 * directly, never this barrel.
 */
import "server-only";

export { addEntry, type AddEntryOptions, type AddedEntry } from "./add-entry";
export { createHandoff, type CreateHandoffOptions, type CreatedHandoff } from "./create-handoff";
export {
  findHandoffs,
  findProjects,
  HISTORY_PAGE_SIZE,
  type FindHandoffsOptions,
  type HandoffPage,
  type HandoffSummary,
} from "./find-handoffs";
export { getHandoff, gitReportOf, openingEntries, requireHandoff, type GetHandoffOptions, type HandoffThread, type OmittedRange } from "./get-handoff";
export { extractHandoffId } from "./handoff-ref";
export * from "./limits";
export { markRead, type MarkReadOptions } from "./mark-read";
export * from "./schemas";
export type { EntryView, HandoffView } from "./views";
