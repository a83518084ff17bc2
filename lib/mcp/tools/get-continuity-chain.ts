import { z } from "zod";
import { operationInput } from "../../validation";
import { CHAIN_WINDOW } from "../../agents/schemas";
import type { ContinuityChain } from "../../agents";
import { loadAgents } from "../domain";
import { agentRefArg } from "../agent-inputs";
import { mcpChainNodeSchema, toMcpChainNode } from "../agent-views";
import { defineTool } from "../tool-kit";

/**
 * Bytes of members one answer may carry, each member's JSON as the text block holds it. An MCP
 * result carries the answer twice (structured and as text): at this budget the whole message stays
 * well under the 256 KiB every answer keeps to, and the text under the 110 KB Claude Code is thought
 * to cut tool output at (lib/handoffs/limits.ts). A member at maximum field lengths weighs about
 * 2.5 KB and more with a long data folder path (its injection prompt names the document's absolute
 * path): the page's CHAIN_WINDOW a side (43 members) came to 108 KB of text, 220 KB in all, before
 * any such path.
 */
const CHAIN_ANSWER_BUDGET_BYTES = 90_000;

const nodeBytes = (node: Parameters<typeof toMcpChainNode>[0]) => Buffer.byteLength(JSON.stringify(toMcpChainNode(node)), "utf8");

const agentsWord = (count: number) => (count === 1 ? "agent" : "agents");

/** How to see the members an answer left out, naming the argument to ask with; null when none were. */
function hintOf(chain: ContinuityChain): string | null {
  const sentences: string[] = [];
  if (chain.earlier > 0) {
    const from = chain.predecessors[0]?.id ?? chain.agentId;
    sentences.push(
      `Left out ${chain.earlier} earlier ${agentsWord(chain.earlier)}: call get_continuity_chain with agent ${from} to see those before it` +
        (chain.first ? `, or agent ${chain.first.id} for the chain's first.` : "."),
    );
  }
  if (chain.later > 0) {
    const from = chain.successors.at(-1)?.id ?? chain.agentId;
    sentences.push(
      `Left out ${chain.later} later ${agentsWord(chain.later)}: call get_continuity_chain with agent ${from} to see those after it` +
        (chain.last ? `, or agent ${chain.last.id} for the chain's last.` : "."),
    );
  }
  return sentences.length > 0 ? sentences.join(" ") : null;
}

export const getContinuityChainTool = defineTool({
  name: "get_continuity_chain",
  title: "Continuity chain",
  description:
    "Show an agent's continuity chain: the agents it continues from (oldest first) and those that continued from it, " +
    "each with its handoff record (reason, document path, delivery). Use it when you start as a successor, to find " +
    `and read your predecessors' shift documents. Of a long chain it lists up to the ${CHAIN_WINDOW} nearest on each side, ` +
    `fewer when they would pass about ${Math.round(CHAIN_ANSWER_BUDGET_BYTES / 1000)} KB, with the chain's first and last agent: ` +
    "then truncated is true, earlier and later count those left out and hint says which agent to ask for to see them.",
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
    truncated: z.boolean().describe("True when agents of the chain were left out (earlier or later above 0)"),
    hint: z.string().nullable().describe("Which agent to ask for to see those left out; null when none were"),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args) {
    const { chainWithinBudget, getContinuityChain } = await loadAgents();
    const chain = chainWithinBudget(await getContinuityChain({ agentId: args.agent }), nodeBytes, CHAIN_ANSWER_BUDGET_BYTES);
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
      truncated: chain.earlier + chain.later > 0,
      hint: hintOf(chain),
    };
  },
});
