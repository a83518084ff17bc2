import "server-only";
import { z } from "zod";
import { read } from "../database";
import { optionalProjectSchema } from "../handoffs/schemas";
import { blankToUndefined, MAX_PAGE, parseInput, wholeNumberParam } from "../validation";
import { chainLength, loadChainLinks, orderChain } from "./chain-links";
import { agentStatusSchema, personaSlugSchema } from "./schemas";
import { AGENT_WITH_RECORD, agentFilterSql, agentWithRecordOf, toAgentDetail, type JoinedAgentRow } from "./rows";
import type { AgentDetail } from "./views";

export const AGENTS_PAGE_SIZE = 50;
/**
 * The most agents one page may be asked for. An agent weighs up to about 2.5 KB of JSON (its name,
 * persona, project and target at their longest, its handoff record's injection prompt, whose
 * document path includes the data folder's, and a failed delivery's reason, said twice):
 * 200 a page was 507 KB, past the 256 KiB an answer keeps to; 50 is 127 KB.
 */
export const MAX_AGENTS_PER_PAGE = 50;
const MAX_QUERY_LENGTH = 100;

const findAgentsInput = z.object({
  status: z.preprocess(blankToUndefined, agentStatusSchema.optional()),
  persona: z.preprocess(blankToUndefined, personaSlugSchema.optional()),
  project: optionalProjectSchema,
  q: z.preprocess(
    blankToUndefined,
    z
      .string({ error: "q must be text" })
      .trim()
      .max(MAX_QUERY_LENGTH, { error: `q must be at most ${MAX_QUERY_LENGTH} characters` })
      .optional(),
  ),
  page: wholeNumberParam("page", 1, MAX_PAGE).transform((page) => page ?? 1),
  perPage: wholeNumberParam("perPage", 1, MAX_AGENTS_PER_PAGE).transform((perPage) => perPage ?? AGENTS_PAGE_SIZE),
});

export type FindAgentsOptions = {
  status?: string | null;
  persona?: string | null;
  project?: string | null;
  /** Text the agent's name, persona or session id holds, letters in any case. */
  q?: string | null;
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

/** `%text%` for LIKE … ESCAPE '!', its own % and _ matched as themselves. */
const containing = (text: string) => `%${text.toLowerCase().replace(/[!%_]/g, (mark) => `!${mark}`)}%`;

/**
 * Agents, active first, newest first; filters: status, persona, project, and `q` (the command
 * palette asks for the few agents it matches rather than every agent).
 */
export async function findAgents(options: FindAgentsOptions = {}): Promise<AgentPage> {
  const input = parseInput(findAgentsInput, options);
  const filter = agentFilterSql("a", input);
  return read(async (tx) => {
    const conditions = filter ? [filter.sql] : [];
    const values = filter?.values ?? [];
    if (input.q) {
      // SQLite's own LOWER() folds ASCII letters only (lib/database/sqlite.ts defines unicode_lower).
      const lower = tx.engine === "postgres" ? "LOWER" : "unicode_lower";
      conditions.push(`(${lower}(a.name) LIKE ? ESCAPE '!' OR a.persona_slug LIKE ? ESCAPE '!' OR a.session_id LIKE ? ESCAPE '!')`);
      values.push(...Array(3).fill(containing(input.q)));
    }
    const where = conditions.length ? ` WHERE ${conditions.join(" AND ")}` : "";
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
      items: rows.map((row) => ({ ...toAgentDetail(agentWithRecordOf(row)), chainLength: chainLength(orderChain(row.id, links)) })),
      total,
      page: input.page,
      perPage: input.perPage,
      pageCount: Math.max(1, Math.ceil(total / input.perPage)),
    };
  });
}
