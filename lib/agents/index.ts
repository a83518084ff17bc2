/**
 * lib/agents: agents (one working session each: a session UUID, a persona, a project, a tmux
 * target) and their shift handoffs (`handoff_records`: the document, stored in the record and
 * written to disk, the successor, the injection prompt and its delivery). The only module that
 * writes the `agents` and `handoff_records` tables (lib/database, SQL both engines run; rows.ts
 * holds their columns); one file per operation, each validating its input with zod and running
 * in one transaction. Server-only: doors import this barrel; client code imports the
 * client-safe modules beside it (schemas.ts for enums and patterns, views.ts for view types,
 * agent-filters.ts for the /agents URL filters).
 */
import "server-only";
export { retryDelivery, type RetryDeliveryOptions } from "./delivery";
export { DELIVERY_STATES, deliveryProblemOf, SUBMIT_DEADLINE_MS, type DeliveryProblem, type DeliveryState } from "./delivery-states";
export { endAgent, type EndAgentOptions } from "./end-agent";
export { findAgentFacets, type AgentFacets } from "./find-agent-facets";
export { AGENTS_PAGE_SIZE, findAgents, type AgentPage, type AgentSummary, type FindAgentsOptions } from "./find-agents";
export { getAgent, type GetAgentOptions } from "./get-agent";
export { getShiftDocument, shiftDocumentUri, type GetShiftDocumentOptions, type ShiftDocument } from "./get-shift-document";
export { chainWithinBudget, getContinuityChain, type ContinuityChain, type GetContinuityChainOptions } from "./get-continuity-chain";
export { SHIFT_DOCUMENT_TEMPLATE, withoutEmptySections } from "./shift-document";
export { listShiftDocuments, type ListShiftDocumentsOptions, type ShiftDocumentSummary } from "./list-shift-documents";
export { loadShiftDocument, type ShiftDocumentContent } from "./load-shift-document";
export { registerAgent, type RegisterAgentOptions } from "./register-agent";
export { resolveAgentId } from "./resolve-agent-id";
export {
  AGENT_STATUSES,
  SHIFT_HANDOFF_REASONS,
  MAX_SHIFT_DOCUMENT_BYTES,
  PERSONA_SLUG_PATTERN,
  TMUX_TARGET_PATTERN,
  type AgentStatus,
  type ShiftHandoffReason,
} from "./schemas";
export { injectionPromptFor, triggerHandoff, type TriggeredHandoff, type TriggerHandoffOptions } from "./trigger-handoff";
export { updateAgent, type UpdateAgentOptions } from "./update-agent";
export { startLeftoverSweeps } from "./write-shift-document";
export type { AgentDetail, AgentView, ChainNode, DeliveryOutcome, HandoffRecordView } from "./views";
export { agentFiltersFrom, agentSearch, type AgentFilters } from "./agent-filters";
