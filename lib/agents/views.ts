import type { DeliveryProblem, DeliveryState } from "./delivery-states";
import type { AgentStatus, ShiftHandoffReason } from "./schemas";

/** An agent as every door shows it: plain JSON, dates as ISO-8601 strings. */
export type AgentView = {
  id: number;
  sessionId: string;
  /** The session id's first 8 hex digits: how files, prompts and the dashboard name the agent. */
  shortId: string;
  personaSlug: string;
  name: string;
  project: string | null;
  status: AgentStatus;
  tmuxTarget: string | null;
  contextPercent: number | null;
  previousAgentId: number | null;
  startedAt: string;
  endedAt: string | null;
};

/**
 * How the tmux bridge fared, in words: "delivered" (typed and seen entered), "typed: <why not
 * submitted>", "failed: <reason>" or "no target".
 */
export type DeliveryOutcome = "delivered" | "no target" | `typed: ${string}` | `failed: ${string}`;

/** The PRD's handoff record (FR1–FR8): what the outgoing agent handed over, and how. */
export type HandoffRecordView = {
  id: number;
  agentId: number;
  reason: ShiftHandoffReason;
  /** Relative to the data folder, with forward slashes. */
  filePath: string | null;
  injectionPrompt: string | null;
  /** Null only while a delivery is under way. */
  delivery: DeliveryOutcome | null;
  /** Where the delivery stands (lib/agents/delivery-states.ts); null for records made before states existed. */
  deliveryState: DeliveryState | null;
  /** Times the prompt was sent to tmux (the first delivery and each retry). */
  deliveryAttempts: number;
  typedAt: string | null;
  submittedAt: string | null;
  /** The successor's first fetch of the document. */
  readAt: string | null;
  /** The successor's first report after reading (its context use). */
  actedAt: string | null;
  createdAt: string;
  /** The successor's status when this was read; null when it has none (deleted). */
  successorStatus: AgentStatus | null;
  /** Whether the prompt did not reach the successor, and whether Retry can still deliver it (delivery-states.ts), as of this read. */
  deliveryProblem: DeliveryProblem | null;
};

export type AgentDetail = AgentView & { handoff: HandoffRecordView | null };

export type ChainNode = AgentDetail;

export function shortIdOf(sessionId: string): string {
  return sessionId.slice(0, 8);
}
