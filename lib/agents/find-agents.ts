import { z } from "zod";
import { readTransaction, type Tx } from "../db";
import type { Prisma } from "../generated/prisma/client";
import { parseInput } from "../validation";
import { agentStatusSchema, optionalProjectSchema, personaSlugSchema } from "./schemas";
import { toAgentDetail, type AgentDetail } from "./views";

export const AGENTS_PAGE_SIZE = 50;

const blankToUndefined = (value: unknown) => (value === "" || value === null ? undefined : value);

export const findAgentsInput = z.object({
  status: z.preprocess(blankToUndefined, agentStatusSchema.optional()),
  persona: z.preprocess(blankToUndefined, personaSlugSchema.optional()),
  project: optionalProjectSchema,
  page: z.coerce.number({ error: "page must be a number" }).int().min(1, { error: "page starts at 1" }).default(1),
  perPage: z.coerce.number().int().min(1).max(200).default(AGENTS_PAGE_SIZE),
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

type RelativeCount = { start: bigint | number; relatives: bigint | number };

/**
 * Chain lengths for a page of agents in one statement: each agent's predecessors and successors
 * (UNION, so cycles end), counted per agent, ids of deleted agents left out.
 */
async function chainLengths(tx: Tx, ids: number[]): Promise<Map<number, number>> {
  const lengths = new Map(ids.map((id) => [id, 1]));
  if (ids.length === 0) return lengths;
  const placeholders = ids.map(() => "?").join(", ");
  const rows = await tx.$queryRawUnsafe<RelativeCount[]>(
    `WITH RECURSIVE
       up(start, id) AS (
         SELECT id, previous_agent_id FROM agents WHERE id IN (${placeholders}) AND previous_agent_id IS NOT NULL
         UNION
         SELECT up.start, a.previous_agent_id FROM up JOIN agents a ON a.id = up.id WHERE a.previous_agent_id IS NOT NULL
       ),
       down(start, id) AS (
         SELECT previous_agent_id, id FROM agents WHERE previous_agent_id IN (${placeholders})
         UNION
         SELECT down.start, a.id FROM down JOIN agents a ON a.previous_agent_id = down.id
       ),
       relatives(start, id) AS (
         SELECT start, id FROM up WHERE id <> start
         UNION
         SELECT start, id FROM down WHERE id <> start
       )
     SELECT r.start AS start, COUNT(*) AS relatives FROM relatives r JOIN agents a ON a.id = r.id GROUP BY r.start`,
    ...ids,
    ...ids,
  );
  for (const row of rows) lengths.set(Number(row.start), 1 + Number(row.relatives));
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
