import "server-only";
import type { Tx } from "../database";
import { idListSql } from "./rows";

/** What a chain is ordered by: each member's link and start. */
export type ChainLink = { id: number; previousAgentId: number | null; startedAt: string };

/** The members of some agents' chains: each by id, and each one's successors in the order a chain lists them (by start, then id). */
export type ChainLinks = { byId: Map<number, ChainLink>; successorsOf: Map<number, ChainLink[]> };

/** One agent's chain around it, as orderChain walks it. */
export type ChainOrder = { predecessors: ChainLink[]; successors: ChainLink[] };

/**
 * `select` (a SELECT from `agents a`) restricted to the chains of some agents: each of them, its
 * predecessors and its successors, in one statement whose one parameter is the JSON list of their
 * ids. Two recursive CTEs walk up and down (PostgreSQL allows one recursive term per CTE); UNION
 * drops a row already produced, so a cycle written by hand ends the walk. A previous_agent_id
 * naming a deleted agent is dropped by the final filter: a gap ends the chain there.
 */
export function chainMembersSql(tx: Tx, select: string): string {
  return `WITH RECURSIVE
  start(id) AS (SELECT id FROM agents WHERE id IN ${idListSql(tx)}),
  up(id) AS (
    SELECT id FROM start
    UNION
    SELECT p.previous_agent_id FROM agents p JOIN up ON p.id = up.id WHERE p.previous_agent_id IS NOT NULL
  ),
  down(id) AS (
    SELECT id FROM start
    UNION
    SELECT s.id FROM agents s JOIN down ON s.previous_agent_id = down.id
  )
${select} WHERE a.id IN (SELECT id FROM up UNION SELECT id FROM down)`;
}

/** The links of every member of the chains of `ids`, in one statement: cost follows the chains' size, not ids × chain. */
export async function loadChainLinks(tx: Tx, ids: number[]): Promise<ChainLinks> {
  const byId = new Map<number, ChainLink>();
  const successorsOf = new Map<number, ChainLink[]>();
  if (ids.length === 0) return { byId, successorsOf };
  const rows = await tx.rows<[number, number | null, string]>(chainMembersSql(tx, "SELECT a.id, a.previous_agent_id, a.started_at FROM agents a"), [JSON.stringify(ids)]);
  for (const [id, previousAgentId, startedAt] of rows) {
    const link = { id, previousAgentId, startedAt };
    byId.set(id, link);
    if (previousAgentId === null) continue;
    const siblings = successorsOf.get(previousAgentId);
    if (siblings) siblings.push(link);
    else successorsOf.set(previousAgentId, [link]);
  }
  for (const successors of successorsOf.values()) successors.sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.id - b.id);
  return { byId, successorsOf };
}

/**
 * The members of `id`'s chain in order, the one walk every chain view counts and lists by:
 * predecessors oldest first, successors breadth first (a fork's branches by start, then id). A
 * cycle written by hand or a missing member (a deleted agent) ends the walk there.
 */
export function orderChain(id: number, { byId, successorsOf }: ChainLinks): ChainOrder {
  const seen = new Set<number>([id]);
  const predecessors: ChainLink[] = [];
  for (let cursor = byId.get(id)?.previousAgentId ?? null; cursor !== null && !seen.has(cursor); ) {
    const link = byId.get(cursor);
    if (!link) break;
    seen.add(cursor);
    predecessors.push(link);
    cursor = link.previousAgentId;
  }
  predecessors.reverse();
  const successors: ChainLink[] = [];
  // `successors` is the breadth-first queue itself: each member's own successors follow it.
  for (let next = -1; next < successors.length; next++) {
    for (const successor of successorsOf.get(next === -1 ? id : successors[next].id) ?? []) {
      if (seen.has(successor.id)) continue;
      seen.add(successor.id);
      successors.push(successor);
    }
  }
  return { predecessors, successors };
}

/** Every member of a chain: the predecessors, the agent it was ordered from and the successors. */
export function chainLength({ predecessors, successors }: ChainOrder): number {
  return predecessors.length + 1 + successors.length;
}
