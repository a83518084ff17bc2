import { z } from "zod";
import type { AgentDetail, AgentView, HandoffRecordView } from "../agents";
import { DELIVERY_STATES } from "../agents/delivery-states";
import { AGENT_STATUSES, SHIFT_HANDOFF_REASONS } from "../agents/schemas";

/** Agents and handoff records in the tools' snake_case; the shapes are the agent tools' output schemas. */
export const mcpAgentSchema = z.object({
  id: z.number().int(),
  session_id: z.string(),
  short_id: z.string().describe("First 8 hex digits of the session id: how files and prompts name the agent"),
  persona_slug: z.string(),
  name: z.string(),
  project: z.string().nullable(),
  status: z.enum(AGENT_STATUSES),
  tmux_target: z.string().nullable(),
  context_percent: z.number().int().nullable(),
  previous_agent_id: z.number().int().nullable().describe("The agent this one continues from"),
  started_at: z.string(),
  ended_at: z.string().nullable(),
});

export const mcpHandoffRecordSchema = z.object({
  id: z.number().int(),
  agent_id: z.number().int(),
  reason: z.enum(SHIFT_HANDOFF_REASONS),
  file_path: z.string().nullable().describe("The shift document, relative to Baton's data folder"),
  injection_prompt: z.string().nullable().describe("What the successor is told first"),
  delivery: z.string().nullable().describe('"delivered", "typed: <why not seen entered>", "no target" or "failed: <reason>" (the tmux bridge)'),
  delivery_state: z
    .enum(DELIVERY_STATES)
    .nullable()
    .describe("queued → typed → submitted (seen entered in the pane) → read (the successor fetched the document) → acted (it reported context); or failed"),
  delivery_attempts: z.number().int(),
  typed_at: z.string().nullable(),
  submitted_at: z.string().nullable(),
  read_at: z.string().nullable(),
  acted_at: z.string().nullable(),
  created_at: z.string(),
  successor_status: z.enum(AGENT_STATUSES).nullable().describe("The successor's status when read; null when it has none"),
  delivery_problem: z
    .object({ kind: z.enum(["stalled", "successor ended"]), message: z.string() })
    .nullable()
    .describe('The prompt did not reach the successor\'s pane: "stalled" (the operator can retry the delivery) or "successor ended" (no one left to deliver it to); null otherwise'),
});

export const mcpChainNodeSchema = mcpAgentSchema.extend({ handoff: mcpHandoffRecordSchema.nullable() });

export function toMcpAgent(view: AgentView): z.infer<typeof mcpAgentSchema> {
  return {
    id: view.id,
    session_id: view.sessionId,
    short_id: view.shortId,
    persona_slug: view.personaSlug,
    name: view.name,
    project: view.project,
    status: view.status,
    tmux_target: view.tmuxTarget,
    context_percent: view.contextPercent,
    previous_agent_id: view.previousAgentId,
    started_at: view.startedAt,
    ended_at: view.endedAt,
  };
}

export function toMcpHandoffRecord(view: HandoffRecordView): z.infer<typeof mcpHandoffRecordSchema> {
  return {
    id: view.id,
    agent_id: view.agentId,
    reason: view.reason,
    file_path: view.filePath,
    injection_prompt: view.injectionPrompt,
    delivery: view.delivery,
    delivery_state: view.deliveryState,
    delivery_attempts: view.deliveryAttempts,
    typed_at: view.typedAt,
    submitted_at: view.submittedAt,
    read_at: view.readAt,
    acted_at: view.actedAt,
    created_at: view.createdAt,
    successor_status: view.successorStatus,
    delivery_problem: view.deliveryProblem,
  };
}

export function toMcpChainNode(view: AgentDetail): z.infer<typeof mcpChainNodeSchema> {
  return { ...toMcpAgent(view), handoff: view.handoff ? toMcpHandoffRecord(view.handoff) : null };
}
