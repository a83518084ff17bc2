import "server-only";
import type { Tx } from "../database";
import { idListSql } from "./rows";

/** Who precedes whom among a set of agents: each one's previous agent, and each one's successors. */
export type ChainLinks = { previousOf: Map<number, number | null>; childrenOf: Map<number, number[]> };

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
  const previousOf = new Map<number, number | null>();
  const childrenOf = new Map<number, number[]>();
  if (ids.length === 0) return { previousOf, childrenOf };
  const rows = await tx.rows<[number, number | null]>(chainMembersSql(tx, "SELECT a.id, a.previous_agent_id FROM agents a"), [JSON.stringify(ids)]);
  for (const [id, previous] of rows) {
    previousOf.set(id, previous);
    if (previous !== null) childrenOf.set(previous, [...(childrenOf.get(previous) ?? []), id]);
  }
  return { previousOf, childrenOf };
}

/** A chain's size from one member, counted as getContinuityChain counts it: predecessors, itself, successors, each once, a gap ending the walk. */
export function chainLengthOf(id: number, { previousOf, childrenOf }: ChainLinks): number {
  const seen = new Set([id]);
  for (let cursor = previousOf.get(id) ?? null; cursor !== null && previousOf.has(cursor) && !seen.has(cursor); cursor = previousOf.get(cursor) ?? null) {
    seen.add(cursor);
  }
  const queue = [id];
  while (queue.length > 0) {
    for (const child of childrenOf.get(queue.pop()!) ?? []) {
      if (seen.has(child)) continue;
      seen.add(child);
      queue.push(child);
    }
  }
  return seen.size;
}
