import { z } from "zod";
import { operationInput } from "../../validation";
import { loadAgents } from "../domain";
import { agentRefArg } from "../agent-inputs";
import { mcpChainNodeSchema, toMcpChainNode } from "../agent-views";
import { defineTool } from "../tool-kit";

export const getContinuityChainTool = defineTool({
  name: "get_continuity_chain",
  title: "Continuity chain",
  description:
    "Show an agent's continuity chain: the agents it continues from (oldest first) and those that continued from it, " +
    "each with its handoff record (reason, document path, delivery). Use it when you start as a successor, to find " +
    "and read your predecessors' shift documents.",
  input: operationInput({ agent: agentRefArg }),
  output: z.object({
    agent_id: z.number().int(),
    predecessors: z.array(mcpChainNodeSchema).describe("Oldest first, ending with the direct predecessor"),
    agent: mcpChainNodeSchema,
    successors: z.array(mcpChainNodeSchema).describe("Direct successor first"),
    length: z.number().int(),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args) {
    const { getContinuityChain } = await loadAgents();
    const chain = await getContinuityChain({ agentId: args.agent });
    return {
      agent_id: chain.agentId,
      predecessors: chain.predecessors.map(toMcpChainNode),
      agent: toMcpChainNode(chain.agent),
      successors: chain.successors.map(toMcpChainNode),
      length: chain.length,
    };
  },
});
