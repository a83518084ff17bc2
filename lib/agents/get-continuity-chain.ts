import "server-only";
import { z } from "zod";
import { read, type Tx } from "../database";
import { parseInput } from "../validation";
import { agentNotFound } from "./load";
import { resolveAgentIdIn } from "./resolve-agent-id";
import { agentRefSchema, CHAIN_WINDOW } from "./schemas";
import { chainLength, loadChainLinks, orderChain } from "./chain-links";
import { AGENT_WITH_RECORD, agentWithRecordOf, idListSql, toAgentDetail, type JoinedAgentRow } from "./rows";
import type { ChainNode } from "./views";

const getContinuityChainInput = z.object({ agentId: agentRefSchema });

export type GetContinuityChainOptions = { agentId: string | number };

/**
 * An agent's continuity chain: who it continues from and who continued from it, in order; of a
 * long chain the CHAIN_WINDOW nearest on each side, with its first and last agent.
 */
export type ContinuityChain = {
  agentId: number;
  /** Oldest first, ending with the agent's direct predecessor; at most CHAIN_WINDOW. */
  predecessors: ChainNode[];
  agent: ChainNode;
  /** Direct successor first, then its successors (breadth first when a chain forks); at most CHAIN_WINDOW. */
  successors: ChainNode[];
  /** Every member: predecessors + the agent + successors, those not listed too. */
  length: number;
  /** Predecessors older than the first listed. */
  earlier: number;
  /** The chain's first agent, when it is one of those not listed. */
  first: ChainNode | null;
  /** Successors after the last listed. */
  later: number;
  /** The chain's last successor (breadth first), when it is one of those not listed. */
  last: ChainNode | null;
};

/**
 * The chain inside the caller's transaction, in two statements whatever its length: the members'
 * links, then the details of those listed (a chain of 10,000 agents whole was 10 MB of answer and
 * 26 MB of page).
 */
export async function getContinuityChainIn(tx: Tx, id: number): Promise<ContinuityChain> {
  const links = await loadChainLinks(tx, [id]);
  if (!links.byId.has(id)) throw agentNotFound(id);
  const order = orderChain(id, links);
  const predecessorIds = order.predecessors.slice(-CHAIN_WINDOW).map((link) => link.id);
  const successorIds = order.successors.slice(0, CHAIN_WINDOW).map((link) => link.id);
  const earlier = order.predecessors.length - predecessorIds.length;
  const later = order.successors.length - successorIds.length;
  const firstId = earlier > 0 ? order.predecessors[0].id : null;
  const lastId = later > 0 ? order.successors[order.successors.length - 1].id : null;
  const listed = [...predecessorIds, id, ...successorIds, ...[firstId, lastId].filter((member) => member !== null)];
  const rows = await tx.all<JoinedAgentRow>(`${AGENT_WITH_RECORD} WHERE a.id IN ${idListSql(tx)}`, [JSON.stringify(listed)]);
  const byId = new Map(rows.map((row) => [row.id, toAgentDetail(agentWithRecordOf(row))]));
  const detailOf = (member: number) => byId.get(member)!;
  return {
    agentId: id,
    predecessors: predecessorIds.map(detailOf),
    agent: detailOf(id),
    successors: successorIds.map(detailOf),
    length: chainLength(order),
    earlier,
    first: firstId === null ? null : detailOf(firstId),
    later,
    last: lastId === null ? null : detailOf(lastId),
  };
}

/**
 * `chain` keeping as many of its listed members as fit `budget` bytes, each weighed by `sizeOf` (a
 * door's own measure: its JSON as that door sends it). The agent and the chain's two ends always
 * stay (they are where to ask next); then the nearest predecessor and successor in turn, a side
 * stopping at its first member that does not fit, so each side stays unbroken. Those left out count
 * in earlier and later and an end not listed becomes first or last, as the window's cut does.
 */
export function chainWithinBudget(chain: ContinuityChain, sizeOf: (node: ChainNode) => number, budget: number): ContinuityChain {
  const { predecessors, successors } = chain;
  const oldest = chain.first ?? predecessors[0] ?? null;
  const newest = chain.last ?? successors.at(-1) ?? null;
  let used = [chain.agent, oldest, newest].reduce((sum, node) => sum + (node ? sizeOf(node) : 0), 0);
  // An end is weighed above already, whether it ends up listed or as first/last.
  const fits = (node: ChainNode) => {
    const cost = node === oldest || node === newest ? 0 : sizeOf(node);
    if (used + cost > budget) return false;
    used += cost;
    return true;
  };
  let before = 0;
  let after = 0;
  let beforeOpen = predecessors.length > 0;
  let afterOpen = successors.length > 0;
  while (beforeOpen || afterOpen) {
    if (beforeOpen) {
      if (fits(predecessors[predecessors.length - 1 - before])) before++;
      else beforeOpen = false;
      if (before === predecessors.length) beforeOpen = false;
    }
    if (afterOpen) {
      if (fits(successors[after])) after++;
      else afterOpen = false;
      if (after === successors.length) afterOpen = false;
    }
  }
  const earlier = chain.earlier + predecessors.length - before;
  const later = chain.later + successors.length - after;
  return {
    ...chain,
    predecessors: predecessors.slice(predecessors.length - before),
    successors: successors.slice(0, after),
    earlier,
    first: earlier > 0 ? oldest : null,
    later,
    last: later > 0 ? newest : null,
  };
}

/** An agent's chain around it, each member listed with its handoff record; safe against cycles and gaps. */
export async function getContinuityChain(options: GetContinuityChainOptions): Promise<ContinuityChain> {
  const input = parseInput(getContinuityChainInput, options);
  return read(async (tx) => getContinuityChainIn(tx, await resolveAgentIdIn(tx, input.agentId)));
}
