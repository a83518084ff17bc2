import "server-only";
import { write } from "../database";
import { Invalid } from "../errors";
import { operationInput, parseInput } from "../validation";
import { endedConflict } from "./conflicts";
import { recordSuccessorActed } from "./delivery";
import { lockAgent } from "./load";
import { resolveAgentIdIn } from "./resolve-agent-id";
import { agentRefSchema, contextPercentSchema, nullableTmuxTargetSchema } from "./schemas";
import { AGENT_RETURNING, toAgentView, type AgentRow } from "./rows";
import type { AgentView } from "./views";
import { assertMayTypeIntoTmux, currentCaller } from "../caller";

export const updateAgentInput = operationInput({
  agentId: agentRefSchema,
  /** The agent's last reported context use, 0–100. */
  contextPercent: contextPercentSchema.optional(),
  /** Where its terminal is; null or blank clears it. */
  tmuxTarget: nullableTmuxTargetSchema.optional(),
}, { target: "agentId" });

export type UpdateAgentOptions = {
  agentId: string | number;
  contextPercent?: number | string;
  tmuxTarget?: string | null;
};

/**
 * Records what an active agent reports: its context use and/or its tmux target. A context
 * report from a successor also marks the handoff it continues from as acted on.
 */
export async function updateAgent(options: UpdateAgentOptions): Promise<AgentView> {
  const input = parseInput(updateAgentInput, options);
  if (input.tmuxTarget) assertMayTypeIntoTmux(currentCaller());
  if (input.contextPercent === undefined && input.tmuxTarget === undefined) {
    throw new Invalid("nothing to update: give contextPercent and/or tmuxTarget", {
      contextPercent: ["give contextPercent and/or tmuxTarget"],
    });
  }
  return write(async (tx) => {
    const id = await resolveAgentIdIn(tx, input.agentId);
    const agent = await lockAgent(tx, id);
    if (agent.status !== "active") throw endedConflict(agent.session_id.slice(0, 8), "update");
    // What was not reported keeps its value (read under the row's lock).
    const row = await tx.get<AgentRow>(`UPDATE agents SET context_percent = ?, tmux_target = ? WHERE id = ? RETURNING ${AGENT_RETURNING}`, [
      input.contextPercent ?? agent.context_percent,
      input.tmuxTarget === undefined ? agent.tmux_target : input.tmuxTarget,
      id,
    ]);
    // A successor's first report is its first act on the handoff it continues from.
    if (input.contextPercent !== undefined) await recordSuccessorActed(tx, agent.previous_agent_id, new Date());
    return toAgentView(row!);
  });
}
