import { endAgent } from "@/lib/agents";
import { jsonRoute } from "@/lib/http";

/** End without a handoff (ending again changes nothing). */
export async function POST(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return jsonRoute(() => endAgent({ agentId: id }));
}
