import "server-only";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { defaultSideOf, type Caller } from "../caller";
import { CLIENT_SIDES, type ClientSide } from "../handoffs/schemas";
import { createMcpServer } from "./create-server";
import { handleSessionRequest } from "./http-sessions";
import { parsed, readMcpMessage, refusal, type McpMessage } from "./http-message";

/**
 * The side of calls that omit `as_client`: `/api/mcp?as=code` like `baton mcp --as code`;
 * without `?as=`, the caller's own (a connector's approved side, else chat).
 */
export function sideOf(request: Request, caller: Caller): ClientSide | "invalid" {
  const value = new URL(request.url).searchParams.get("as");
  if (value === null || value === "") return defaultSideOf(caller);
  return CLIENT_SIDES.find((side) => side === value.toLowerCase()) ?? "invalid";
}

/**
 * Servers with every tool registered, waiting for their next request, per side (the caller's
 * rules are the domain's, read from the current caller). Building one (ten tools, their schemas) costs about as much as the
 * append it serves; connecting a built one to a fresh transport costs microseconds. A server
 * serves one request at a time, so concurrent requests take several; more than MAX_IDLE left
 * over after a burst are dropped.
 */
const idle = new Map<string, McpServer[]>();
const MAX_IDLE = 16;

/**
 * One stateless Streamable HTTP exchange: a fresh transport (JSON responses, no session; the SDK
 * refuses to reuse a stateless one) connected to an idle server for this POST and closed once the
 * response is made.
 */
async function handleStateless(request: Request, side: ClientSide, message: McpMessage): Promise<Response> {
  const pool = idle.get(side) ?? [];
  idle.set(side, pool);
  const server = pool.pop() ?? createMcpServer({ defaultClient: side });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, parsed(message));
  } finally {
    await server.close();
    if (pool.length < MAX_IDLE) pool.push(server);
  }
}

/**
 * Baton's MCP server over Streamable HTTP, for a caller the guard admitted. A client that
 * initializes gets a session (subscriptions and their notifications ride on its GET stream); a
 * POST without a session id is served statelessly; GET and DELETE need a session.
 */
export async function serveMcp(request: Request, caller: Caller): Promise<Response> {
  const side = sideOf(request, caller);
  if (side === "invalid") return refusal(400, 'the as query parameter must be "chat" or "code"');
  const message = request.method === "POST" ? await readMcpMessage(request) : "none";
  if (message instanceof Response) return message;
  const inSession = await handleSessionRequest(request, caller, side, message);
  if (inSession) return inSession;
  if (request.method === "POST") return handleStateless(request, side, message);
  return refusal(405, "GET and DELETE need an Mcp-Session-Id from an initialize; send JSON-RPC requests with POST", { allow: "POST" });
}
