import { getAgent, updateAgent, type UpdateAgentOptions } from "@/lib/agents";
import { jsonRoute, readJsonBody } from "@/lib/http";

type Context = { params: Promise<{ id: string }> };

/** One agent with its handoff record; `id` is the integer id, the session UUID or its 8-hex prefix. */
export async function GET(_request: Request, { params }: Context) {
  const { id } = await params;
  return jsonRoute(() => getAgent({ agentId: id }));
}

/** Report: `{ contextPercent?, tmuxTarget? }` (tmuxTarget null clears it). */
export async function PATCH(request: Request, { params }: Context) {
  const { id } = await params;
  return jsonRoute(async () => {
    const body = (await readJsonBody(request)) as Omit<UpdateAgentOptions, "agentId">;
    return updateAgent({ ...body, agentId: id });
  });
}
