import "server-only";
export { endAgent, type EndAgentOptions } from "./end-agent";
export { findAgentFacets, type AgentFacets } from "./find-agent-facets";
export { AGENTS_PAGE_SIZE, findAgents, type AgentPage, type AgentSummary, type FindAgentsOptions } from "./find-agents";
export { getAgent, type GetAgentOptions } from "./get-agent";
export { getContinuityChain, type ContinuityChain, type GetContinuityChainOptions } from "./get-continuity-chain";
export { HANDOFF_DOCUMENT_TEMPLATE } from "./handoff-document";
export { readHandoffDocument, type HandoffDocumentContent } from "./read-handoff-document";
export { registerAgent, type RegisterAgentOptions } from "./register-agent";
export { resolveAgentId } from "./resolve-agent-id";
export {
  AGENT_STATUSES,
  HANDOFF_REASONS,
  MAX_DOCUMENT_BYTES,
  PERSONA_SLUG_PATTERN,
  TMUX_TARGET_PATTERN,
  type AgentStatus,
  type HandoffReason,
} from "./schemas";
export { injectionPromptFor, triggerHandoff, type TriggeredHandoff, type TriggerHandoffOptions } from "./trigger-handoff";
export { updateAgent, type UpdateAgentOptions } from "./update-agent";
export type { AgentDetail, AgentView, ChainNode, DeliveryOutcome, HandoffRecordView } from "./views";
export { agentFiltersFrom, agentSearch, type AgentFilters } from "./agent-filters";
