import "server-only";
import { z } from "zod";
import { readTransaction } from "../db";
import type { Prisma } from "../generated/prisma/client";
import { optionalProjectSchema } from "../handoffs/schemas";
import { blankToUndefined, MAX_PAGE, parseInput, wholeNumberParam } from "../validation";
import { chainLengthOf, loadChainLinks } from "./chain-links";
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
    // One statement for every chain on the page, each length counted in memory.
    const links = await loadChainLinks(
      tx,
      rows.map((row) => row.id),
    );
    return {
      items: rows.map((row) => ({ ...toAgentDetail(row), chainLength: chainLengthOf(row.id, links) })),
      total,
      page: input.page,
      perPage: input.perPage,
      pageCount: Math.max(1, Math.ceil(total / input.perPage)),
    };
  });
}
