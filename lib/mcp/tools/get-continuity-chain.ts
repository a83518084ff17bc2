import { z } from "zod";
import { operationInput } from "../../validation";
import { CHAIN_WINDOW } from "../../agents/schemas";
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
    `and read your predecessors' shift documents. Of a long chain it lists the ${CHAIN_WINDOW} nearest on each side, ` +
    "with how many more there are and the chain's first and last agent (ask again for one of them to see further).",
  input: operationInput({ agent: agentRefArg }),
  output: z.object({
    agent_id: z.number().int(),
    predecessors: z.array(mcpChainNodeSchema).describe("Oldest first, ending with the direct predecessor"),
    agent: mcpChainNodeSchema,
    successors: z.array(mcpChainNodeSchema).describe("Direct successor first"),
    length: z.number().int().describe("Every agent of the chain, those not listed too"),
    earlier: z.number().int().describe("Predecessors older than the first listed"),
    first: mcpChainNodeSchema.nullable().describe("The chain's first agent, when it is not listed"),
    later: z.number().int().describe("Successors after the last listed"),
    last: mcpChainNodeSchema.nullable().describe("The chain's last agent, when it is not listed"),
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
      earlier: chain.earlier,
      first: chain.first && toMcpChainNode(chain.first),
      later: chain.later,
      last: chain.last && toMcpChainNode(chain.last),
    };
  },
});
