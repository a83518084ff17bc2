export { addEntry, type AddEntryOptions, type AddedEntry } from "./add-entry";
export { closeHandoff, type CloseHandoffOptions, type ClosedHandoff } from "./close-handoff";
export { createHandoff, type CreateHandoffOptions, type CreatedHandoff } from "./create-handoff";
export {
  findHandoffs,
  findProjects,
  HISTORY_PAGE_SIZE,
  SOURCE_FILTERS,
  type FindHandoffsOptions,
  type HandoffPage,
  type HandoffSummary,
  type SourceFilter,
} from "./find-handoffs";
export { getHandoff, type GetHandoffOptions, type HandoffThread, type OmittedRange } from "./get-handoff";
export { extractHandoffId } from "./handoff-ref";
export * from "./limits";
export { markRead, type MarkReadOptions } from "./mark-read";
export * from "./schemas";
export type { EntryView, HandoffView } from "./views";
