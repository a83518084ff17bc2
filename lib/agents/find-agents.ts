import "server-only";
import { z } from "zod";
import { read } from "../database";
import { optionalProjectSchema } from "../handoffs/schemas";
import { blankToUndefined, MAX_PAGE, parseInput, wholeNumberParam } from "../validation";
import { chainLengthOf, loadChainLinks } from "./chain-links";
import { agentStatusSchema, personaSlugSchema } from "./schemas";
import { AGENT_WITH_RECORD, agentFilterSql, agentWithRecordOf, toAgentDetail, type JoinedAgentRow } from "./rows";
import type { AgentDetail } from "./views";

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
  const filter = agentFilterSql("a", input);
  const where = filter ? ` WHERE ${filter.sql}` : "";
  const values = filter?.values ?? [];
  return read(async (tx) => {
    const counted = await tx.get<{ total: number }>(`SELECT COUNT(*) AS total FROM agents a${where}`, values);
    const rows = await tx.all<JoinedAgentRow>(`${AGENT_WITH_RECORD}${where} ORDER BY a.status ASC, a.started_at DESC, a.id DESC LIMIT ? OFFSET ?`, [
      ...values,
      input.perPage,
      (input.page - 1) * input.perPage,
    ]);
    // One statement for every chain on the page, each length counted in memory.
    const links = await loadChainLinks(
      tx,
      rows.map((row) => row.id),
    );
    const total = counted?.total ?? 0;
    return {
      items: rows.map((row) => ({ ...toAgentDetail(agentWithRecordOf(row)), chainLength: chainLengthOf(row.id, links) })),
      total,
      page: input.page,
      perPage: input.perPage,
      pageCount: Math.max(1, Math.ceil(total / input.perPage)),
    };
  });
}
