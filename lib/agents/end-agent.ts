import "server-only";
import { z } from "zod";
import { storedDate, write } from "../database";
import { parseInput } from "../validation";
import { lockAgent } from "./load";
import { resolveAgentIdIn } from "./resolve-agent-id";
import { AGENT_RETURNING, toAgentView, type AgentRow } from "./rows";
import { agentRefSchema } from "./schemas";
import type { AgentView } from "./views";

const endAgentInput = z.object({ agentId: agentRefSchema });

export type EndAgentOptions = { agentId: string | number };

/**
 * Ends an agent without a handoff (it finished, or was abandoned). Ending an ended agent changes
 * nothing. To pass the work on, use triggerHandoff instead: it ends the agent too.
 */
export async function endAgent(options: EndAgentOptions): Promise<AgentView> {
  const input = parseInput(endAgentInput, options);
  return write(async (tx) => {
    const id = await resolveAgentIdIn(tx, input.agentId);
    const agent = await lockAgent(tx, id);
    if (agent.status === "ended") return toAgentView(agent);
    const ended = await tx.get<AgentRow>(`UPDATE agents SET status = 'ended', ended_at = ? WHERE id = ? RETURNING ${AGENT_RETURNING}`, [storedDate(), id]);
    return toAgentView(ended!);
  });
}
