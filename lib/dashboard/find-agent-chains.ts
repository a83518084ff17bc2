import "server-only";
import { read } from "../database";
import type { AgentFilters } from "../agents/agent-filters";
import { chainLength, loadChainLinks, orderChain } from "../agents/chain-links";
import type { DeliveryProblem } from "../agents/delivery-states";
import { AGENT_WITH_RECORD, agentFilterSql, agentWithRecordOf, idListSql, toAgentDetail, type JoinedAgentRow } from "../agents/rows";
import type { AgentDetail } from "../agents/views";

export const CHAINS_PAGE_SIZE = 50;
/** Predecessors shown folded under a chain's latest agent; an agent's own page shows the nearest on each side (CHAIN_WINDOW) and the chain's ends. */
export const MAX_FOLDED_PREDECESSORS = 20;

/** An agent as /agents lists it, with whether the shift prompt that started it (its predecessor's) did not arrive. */
export type ListedAgent = AgentDetail & {
  /** The handoff it was started by did not reach this agent's pane (its own handoff's is on `handoff.deliveryProblem`). */
  arrivalProblem: DeliveryProblem | null;
};

/** One continuity chain as /agents shows it: its latest agent (among those the filters keep), predecessors folded. */
export type AgentChain = {
  latest: ListedAgent;
  /** Newest first, at most MAX_FOLDED_PREDECESSORS. */
  predecessors: ListedAgent[];
  /** Every agent of the chain (predecessors and successors, however many). */
  length: number;
};

export type AgentChainPage = { chains: AgentChain[]; total: number; page: number; pageCount: number; perPage: number };

/**
 * /agents grouped by continuity chain. A chain is listed by its latest agent among those the
 * filters keep (an agent none of whose successors the filters keep), active chains first, newest
 * first; its predecessors come folded under it, each marked when its shift prompt did not arrive.
 * Pages count chains.
 */
export async function findAgentChains(filters: AgentFilters): Promise<AgentChainPage> {
  const page = filters.page ?? 1;
  const perPage = CHAINS_PAGE_SIZE;
  const own = agentFilterSql("a", filters);
  const successor = agentFilterSql("s", filters);
  const latestSql = `FROM agents a WHERE ${own ? `${own.sql} AND ` : ""}NOT EXISTS (SELECT 1 FROM agents s WHERE s.previous_agent_id = a.id${successor ? ` AND ${successor.sql}` : ""})`;
  const values = [...(own?.values ?? []), ...(successor?.values ?? [])];
  return read(async (tx) => {
    const counted = await tx.get<{ total: number }>(`SELECT COUNT(*) AS total ${latestSql}`, values);
    const latestRows = await tx.rows<[number]>(`SELECT a.id ${latestSql} ORDER BY a.status ASC, a.started_at DESC, a.id DESC LIMIT ? OFFSET ?`, [
      ...values,
      perPage,
      (page - 1) * perPage,
    ]);
    const latestIds = latestRows.map(([id]) => id);
    const links = await loadChainLinks(tx, latestIds);
    const orderOf = new Map(latestIds.map((id) => [id, orderChain(id, links)]));

    // Each chain's shown predecessors, newest first, and the one before the oldest shown (its handoff started that agent).
    const shownOf = new Map<number, number[]>();
    const needed = new Set<number>(latestIds);
    for (const [id, { predecessors }] of orderOf) {
      const shown = predecessors.slice(-MAX_FOLDED_PREDECESSORS).map((link) => link.id).reverse();
      shownOf.set(id, shown);
      for (const link of predecessors.slice(-MAX_FOLDED_PREDECESSORS - 1)) needed.add(link.id);
    }
    const rows = await tx.all<JoinedAgentRow>(`${AGENT_WITH_RECORD} WHERE a.id IN ${idListSql(tx)}`, [JSON.stringify([...needed])]);
    const byId = new Map(rows.map((row) => [row.id, toAgentDetail(agentWithRecordOf(row))]));
    const listed = (id: number): ListedAgent => {
      const agent = byId.get(id)!;
      const arrival = agent.previousAgentId === null ? null : (byId.get(agent.previousAgentId)?.handoff ?? null);
      return { ...agent, arrivalProblem: arrival?.deliveryProblem ?? null };
    };
    const count = counted?.total ?? 0;
    return {
      chains: latestIds.map((id) => ({
        latest: listed(id),
        predecessors: shownOf.get(id)!.map(listed),
        length: chainLength(orderOf.get(id)!),
      })),
      total: count,
      page,
      perPage,
      pageCount: Math.max(1, Math.ceil(count / perPage)),
    };
  });
}
