import "server-only";
import { z } from "zod";
import { readTransaction, type Tx } from "../db";
import { parseInput } from "../validation";
import { agentNotFound } from "./load";
import { resolveAgentIdIn } from "./resolve-agent-id";
import { agentRefSchema } from "./schemas";
import { toAgentDetail, type ChainNode } from "./views";

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

type ChainRow = { id: bigint | number; direction: "up" | "down" };

/**
 * Both directions' member ids in one statement. The recursive CTEs use UNION, which drops a row
 * already produced, so a cycle inserted by hand ends the walk instead of looping forever. Ids that
 * point at deleted agents are dropped by the final joins (a gap ends the chain there).
 */
const CHAIN_IDS_SQL = `
WITH RECURSIVE
  up(id) AS (
    SELECT id FROM agents WHERE id = ?
    UNION
    SELECT a.previous_agent_id FROM agents a JOIN up ON a.id = up.id WHERE a.previous_agent_id IS NOT NULL
  ),
  down(id) AS (
    SELECT id FROM agents WHERE previous_agent_id = ?
    UNION
    SELECT a.id FROM agents a JOIN down ON a.previous_agent_id = down.id
  )
SELECT up.id AS id, 'up' AS direction FROM up JOIN agents a ON a.id = up.id
UNION ALL
SELECT down.id AS id, 'down' AS direction FROM down`;

/** The chain inside the caller's transaction: two queries whatever its length. */
export async function getContinuityChainIn(tx: Tx, id: number): Promise<ContinuityChain> {
  const ids = await tx.$queryRawUnsafe<ChainRow[]>(CHAIN_IDS_SQL, id, id);
  const memberIds = [...new Set(ids.map((row) => Number(row.id)))];
  const rows = await tx.agent.findMany({ where: { id: { in: memberIds } }, include: { handoff: true } });
  const byId = new Map(rows.map((row) => [row.id, toAgentDetail(row)]));
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
  return readTransaction(async (tx) => getContinuityChainIn(tx, await resolveAgentIdIn(tx, input.agentId)));
}
