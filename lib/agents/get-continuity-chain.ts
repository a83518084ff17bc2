import "server-only";
import { z } from "zod";
import { read, type Tx } from "../database";
import { parseInput } from "../validation";
import { agentNotFound } from "./load";
import { resolveAgentIdIn } from "./resolve-agent-id";
import { agentRefSchema } from "./schemas";
import { chainMembersSql } from "./chain-links";
import { AGENT_WITH_RECORD, agentWithRecordOf, toAgentDetail, type JoinedAgentRow } from "./rows";
import type { ChainNode } from "./views";

const getContinuityChainInput = z.object({ agentId: agentRefSchema });

export type GetContinuityChainOptions = { agentId: string | number };

/** An agent's continuity chain: who it continues from and who continued from it, in order. */
export type ContinuityChain = {
  agentId: number;
  /** Oldest first, ending with the agent's direct predecessor. */
  predecessors: ChainNode[];
  agent: ChainNode;
  /** Direct successor first, then its successors (breadth first when a chain forks). */
  successors: ChainNode[];
  /** predecessors + the agent + successors. */
  length: number;
};

/** The chain inside the caller's transaction: one statement whatever its length. */
export async function getContinuityChainIn(tx: Tx, id: number): Promise<ContinuityChain> {
  const rows = await tx.all<JoinedAgentRow>(chainMembersSql(tx, AGENT_WITH_RECORD), [JSON.stringify([id])]);
  const byId = new Map(rows.map((row) => [row.id, toAgentDetail(agentWithRecordOf(row))]));
  const agent = byId.get(id);
  if (!agent) throw agentNotFound(id);

  const seen = new Set<number>([id]);
  const predecessors: ChainNode[] = [];
  for (let cursor = agent.previousAgentId; cursor !== null && !seen.has(cursor); ) {
    const node = byId.get(cursor);
    if (!node) break;
    seen.add(cursor);
    predecessors.unshift(node);
    cursor = node.previousAgentId;
  }

  const childrenOf = new Map<number, ChainNode[]>();
  for (const node of byId.values()) {
    if (node.previousAgentId === null) continue;
    const siblings = childrenOf.get(node.previousAgentId) ?? [];
    siblings.push(node);
    childrenOf.set(node.previousAgentId, siblings);
  }
  const successors: ChainNode[] = [];
  const queue = [id];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    const children = (childrenOf.get(parent) ?? []).sort(
      (a, b) => a.startedAt.localeCompare(b.startedAt) || a.id - b.id,
    );
    for (const child of children) {
      if (seen.has(child.id)) continue;
      seen.add(child.id);
      successors.push(child);
      queue.push(child.id);
    }
  }
  return { agentId: id, predecessors, agent, successors, length: predecessors.length + 1 + successors.length };
}

/** Every predecessor and successor of an agent, each with its handoff record; safe against cycles and gaps. */
export async function getContinuityChain(options: GetContinuityChainOptions): Promise<ContinuityChain> {
  const input = parseInput(getContinuityChainInput, options);
  return read(async (tx) => getContinuityChainIn(tx, await resolveAgentIdIn(tx, input.agentId)));
}
