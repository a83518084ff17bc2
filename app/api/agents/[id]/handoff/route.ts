import { triggerHandoff, type TriggerHandoffOptions } from "@/lib/agents";
import { jsonRoute, readJsonBody } from "@/lib/http";

/** Hand off: `{ reason, document, successor?: { tmuxTarget?, name?, sessionId? } }` → `{ record, agent, successor, redactions }`. */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return jsonRoute(async () => {
    const body = (await readJsonBody(request)) as Omit<TriggerHandoffOptions, "agentId">;
    return triggerHandoff({ ...body, agentId: id });
  }, 201);
}
