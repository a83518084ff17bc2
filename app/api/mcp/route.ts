import { handleMcpHttpRequest, identityOf, methodNotAllowed, readMcpMessage, refusal } from "@/lib/mcp/handle-http";
import { handleSessionRequest } from "@/lib/mcp/http-sessions";

/**
 * Baton's MCP server over Streamable HTTP; the guard (lib/guard) checks every request before it
 * gets here. A client that initializes gets a session (subscriptions and their notifications ride
 * on its GET stream); a request without a session id is served statelessly.
 */
export async function POST(request: Request): Promise<Response> {
  const identity = identityOf(request);
  if (identity === "invalid") return refusal(400, 'the as query parameter must be "chat" or "code"');
  const message = await readMcpMessage(request);
  if (message instanceof Response) return message;
  return (await handleSessionRequest(request, identity, message)) ?? handleMcpHttpRequest(request, identity, message);
}

async function sessionOnly(request: Request): Promise<Response> {
  const identity = identityOf(request);
  if (identity === "invalid") return refusal(400, 'the as query parameter must be "chat" or "code"');
  return (await handleSessionRequest(request, identity, "none")) ?? methodNotAllowed();
}

export const GET = sessionOnly;
export const DELETE = sessionOnly;
