import "server-only";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { sideOfCall, withCaller, type Caller } from "../caller";
import { Forbidden } from "../errors";
import { CLIENT_SIDES } from "../handoffs/schemas";
import { createMcpServer } from "./create-server";
import { handleSessionRequest } from "./http-sessions";
import { parsed, readMcpMessage, refusal, type McpMessage } from "./http-message";

/**
 * The caller with the side `/api/mcp?as=code` names (like `baton mcp --as code`), for calls that
 * omit `as_client`; without `?as=`, the caller as it is (lib/caller.ts's defaultSideOf decides).
 */
function sidedCaller(request: Request, caller: Caller): Caller | Response {
  const value = new URL(request.url).searchParams.get("as");
  if (value === null || value === "") return caller;
  const side = CLIENT_SIDES.find((candidate) => candidate === value.toLowerCase());
  if (!side) return refusal(400, 'the as query parameter must be "chat" or "code"');
  // A connector's side is the one approved for it (sideOfCall refuses the other).
  try {
    sideOfCall(caller, side);
  } catch (error) {
    if (error instanceof Forbidden) return refusal(403, error.message);
    throw error;
  }
  return { ...caller, side };
}

/**
 * Servers with every tool registered, waiting for their next request (the caller's rules and
 * default side are the domain's, read from the current caller). Building one (ten tools, their schemas) costs about as much as the
 * append it serves; connecting a built one to a fresh transport costs microseconds. A server
 * serves one request at a time, so concurrent requests take several; more than MAX_IDLE left
 * over after a burst are dropped.
 */
const idle: McpServer[] = [];
const MAX_IDLE = 16;

/**
 * One stateless Streamable HTTP exchange: a fresh transport (JSON responses, no session; the SDK
 * refuses to reuse a stateless one) connected to an idle server for this POST and closed once the
 * response is made.
 */
async function handleStateless(request: Request, message: McpMessage): Promise<Response> {
  const server = idle.pop() ?? createMcpServer();
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, parsed(message));
  } finally {
    await server.close();
    if (idle.length < MAX_IDLE) idle.push(server);
  }
}

/**
 * Baton's MCP server over Streamable HTTP, for a caller the guard admitted. A client that
 * initializes gets a session (subscriptions and their notifications ride on its GET stream); a
 * POST without a session id is served statelessly; GET and DELETE need a session.
 */
export async function serveMcp(request: Request, caller: Caller): Promise<Response> {
  const sided = sidedCaller(request, caller);
  if (sided instanceof Response) return sided;
  const message = request.method === "POST" ? await readMcpMessage(request) : "none";
  if (message instanceof Response) return message;
  return withCaller(sided, async () => {
    const inSession = await handleSessionRequest(request, sided, message);
    if (inSession) return inSession;
    if (request.method === "POST") return handleStateless(request, message);
    return refusal(405, "GET and DELETE need an Mcp-Session-Id from an initialize; send JSON-RPC requests with POST", { allow: "POST" });
  });
}
