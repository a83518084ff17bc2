import "server-only";
import { z } from "zod";
import { read } from "../database";
import { parseInput } from "../validation";
import { loadAgent } from "./load";
import { resolveAgentIdIn } from "./resolve-agent-id";
import { toAgentDetail } from "./rows";
import { agentRefSchema } from "./schemas";
import type { AgentDetail } from "./views";

const getAgentInput = z.object({ agentId: agentRefSchema });

export type GetAgentOptions = { agentId: string | number };

/** One agent with its handoff record (`handoff` is null when it has none). */
export async function getAgent(options: GetAgentOptions): Promise<AgentDetail> {
  const input = parseInput(getAgentInput, options);
  return read(async (tx) => toAgentDetail(await loadAgent(tx, await resolveAgentIdIn(tx, input.agentId))));
}
