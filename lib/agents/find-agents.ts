import "server-only";
import { z } from "zod";
import { readTransaction, type Tx } from "../db";
import type { Prisma } from "../generated/prisma/client";
import { optionalProjectSchema } from "../handoffs/schemas";
import { blankToUndefined, MAX_PAGE, parseInput, wholeNumberParam } from "../validation";
import { agentStatusSchema, personaSlugSchema } from "./schemas";
import { toAgentDetail, type AgentDetail } from "./views";

export const AGENTS_PAGE_SIZE = 50;


const findAgentsInput = z.object({
  status: z.preprocess(blankToUndefined, agentStatusSchema.optional()),
  persona: z.preprocess(blankToUndefined, personaSlugSchema.optional()),
  project: optionalProjectSchema,
  page: wholeNumberParam("page", 1, MAX_PAGE).transform((page) => page ?? 1),
  perPage: wholeNumberParam("perPage", 1, 200).transform((perPage) => perPage ?? AGENTS_PAGE_SIZE),
});

export type FindAgentsOptions = {
  status?: string | null;
  persona?: string | null;
  project?: string | null;
  page?: number | string;
  perPage?: number | string;
};

export type AgentSummary = AgentDetail & {
  /** How many agents its continuity chain holds, itself included. */
  chainLength: number;
};

export type AgentPage = {
  items: AgentSummary[];
  total: number;
  page: number;
  pageCount: number;
  perPage: number;
};

type LinkRow = { id: bigint | number; previous_agent_id: bigint | number | null };

/**
 * Chain lengths for a page of agents: one statement loads the id and link of every agent
 * connected to the page's agents (a recursive CTE walking both ways; UNION, so cycles end), then
 * each length is counted in memory the way getContinuityChain counts it (predecessors + itself +
 * successors, each agent once, gaps ending the walk). Cost follows the chains' size, not page × chain.
 */
async function chainLengths(tx: Tx, ids: number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
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
  const previousOf = new Map<number, number | null>();
  const childrenOf = new Map<number, number[]>();
  for (const row of rows) {
    const id = Number(row.id);
    const previous = row.previous_agent_id === null ? null : Number(row.previous_agent_id);
    previousOf.set(id, previous);
    if (previous !== null) childrenOf.set(previous, [...(childrenOf.get(previous) ?? []), id]);
  }
  const lengths = new Map<number, number>();
  for (const id of ids) {
    const seen = new Set([id]);
    for (let cursor = previousOf.get(id) ?? null; cursor !== null && previousOf.has(cursor) && !seen.has(cursor); ) {
      seen.add(cursor);
      cursor = previousOf.get(cursor) ?? null;
    }
    const queue = [id];
    while (queue.length > 0) {
      for (const child of childrenOf.get(queue.pop()!) ?? []) {
        if (seen.has(child)) continue;
        seen.add(child);
        queue.push(child);
      }
    }
    lengths.set(id, seen.size);
  }
  return lengths;
}

/** Agents, active first, newest first; filters: status, persona, project. */
export async function findAgents(options: FindAgentsOptions = {}): Promise<AgentPage> {
  const input = parseInput(findAgentsInput, options);
  const where: Prisma.AgentWhereInput = {
    ...(input.status && { status: input.status }),
    ...(input.persona && { personaSlug: input.persona }),
    ...(input.project && { project: input.project }),
  };
  return readTransaction(async (tx) => {
    const [total, rows] = await Promise.all([
      tx.agent.count({ where }),
      tx.agent.findMany({
        where,
        orderBy: [{ status: "asc" }, { startedAt: "desc" }, { id: "desc" }],
        skip: (input.page - 1) * input.perPage,
        take: input.perPage,
        include: { handoff: true },
      }),
    ]);
    const lengths = await chainLengths(
      tx,
      rows.map((row) => row.id),
    );
    return {
      items: rows.map((row) => ({ ...toAgentDetail(row), chainLength: lengths.get(row.id) ?? 1 })),
      total,
      page: input.page,
      perPage: input.perPage,
      pageCount: Math.max(1, Math.ceil(total / input.perPage)),
    };
  });
}
