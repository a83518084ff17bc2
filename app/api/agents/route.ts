import { findAgents, registerAgent, type RegisterAgentOptions } from "@/lib/agents";
import { jsonRoute, readJsonBody } from "@/lib/http";

/** Agents: `?status=active|ended&persona=&project=&page=&perPage=`. */
export async function GET(request: Request) {
  const params = Object.fromEntries(new URL(request.url).searchParams);
  return jsonRoute(() => findAgents(params));
}

/** Register: `{ personaSlug, name?, project?, sessionId?, tmuxTarget?, contextPercent? }` → the agent; fields are validated by registerAgent. */
export async function POST(request: Request) {
  return jsonRoute(async () => registerAgent((await readJsonBody(request)) as RegisterAgentOptions), 201);
}
