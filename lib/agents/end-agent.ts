import "server-only";
import { z } from "zod";
import { writeTransaction } from "../db";
import { parseInput } from "../validation";
import { loadAgent } from "./load";
import { resolveAgentIdIn } from "./resolve-agent-id";
import { agentRefSchema } from "./schemas";
import { toAgentView, type AgentView } from "./views";

const endAgentInput = z.object({ agentId: agentRefSchema });

export type EndAgentOptions = { agentId: string | number };

/**
 * Ends an agent without a handoff (it finished, or was abandoned). Ending an ended agent changes
 * nothing. To pass the work on, use triggerHandoff instead: it ends the agent too.
 */
export async function endAgent(options: EndAgentOptions): Promise<AgentView> {
  const input = parseInput(endAgentInput, options);
  return writeTransaction(async (tx) => {
    const id = await resolveAgentIdIn(tx, input.agentId);
    const agent = await loadAgent(tx, id);
    if (agent.status === "ended") return toAgentView(agent);
    return toAgentView(await tx.agent.update({ where: { id }, data: { status: "ended", endedAt: new Date() } }));
  });
}
