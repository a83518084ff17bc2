import { getContinuityChain } from "@/lib/agents";
import { jsonRoute } from "@/lib/http";

/** The agent's continuity chain: `{ predecessors, agent, successors, length }`. */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return jsonRoute(() => getContinuityChain({ agentId: id }));
}
