import "server-only";
import type { Tx } from "../db";

/** Who precedes whom among a set of agents: each one's previous agent, and each one's successors. */
export type ChainLinks = { previousOf: Map<number, number | null>; childrenOf: Map<number, number[]> };

type LinkRow = { id: bigint | number; previous_agent_id: bigint | number | null };

/**
 * The links of every agent connected to `ids`, in one statement: a recursive CTE walking both
 * ways (UNION, so a cycle written by hand ends). Cost follows the chains' size, not ids × chain.
 */
export async function loadChainLinks(tx: Tx, ids: number[]): Promise<ChainLinks> {
  const previousOf = new Map<number, number | null>();
  const childrenOf = new Map<number, number[]>();
  if (ids.length === 0) return { previousOf, childrenOf };
  const placeholders = ids.map(() => "?").join(", ");
  const rows = await tx.$queryRawUnsafe<LinkRow[]>(
    `WITH RECURSIVE connected(id) AS (
       SELECT id FROM agents WHERE id IN (${placeholders})
       UNION
       SELECT a.previous_agent_id FROM agents a JOIN connected c ON a.id = c.id WHERE a.previous_agent_id IS NOT NULL
       UNION
       SELECT a.id FROM agents a JOIN connected c ON a.previous_agent_id = c.id
     )
     SELECT a.id AS id, a.previous_agent_id AS previous_agent_id FROM connected c JOIN agents a ON a.id = c.id`,
    ...ids,
  );
  for (const row of rows) {
    const id = Number(row.id);
    const previous = row.previous_agent_id === null ? null : Number(row.previous_agent_id);
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
