import "server-only";
import { randomUUID } from "node:crypto";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { ClientSide } from "../handoffs/schemas";
import { PRINCIPAL_HEADER } from "../guard/stamp";
import { createMcpServer } from "./create-server";
import { isLocalCaller, parsed, type McpMessage } from "./handle-http";

/**
 * Streamable HTTP sessions, for what a stateless exchange cannot carry: notifications the client
 * did not ask for (`notifications/resources/updated` on a subscribed handoff) over the session's
 * GET stream. A client that initializes gets a session (`Mcp-Session-Id`), its own server with
 * subscriptions on, and keeps it until it sends DELETE or stays idle for IDLE_MS; requests
 * without a session id go on to the stateless path. A session answers only the caller the guard
 * admitted when it was made, so a leaked id is worth nothing to anyone else.
 */
type Session = { server: McpServer; transport: WebStandardStreamableHTTPServerTransport; caller: string; lastUsed: number };

const IDLE_MS = 30 * 60 * 1000;
const MAX_SESSIONS = 256;
const sessions = new Map<string, Session>();

const SESSION_HEADER = "mcp-session-id";

function jsonRpcError(status: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }, { status, headers: { "cache-control": "no-store" } });
}

async function closeSession(id: string): Promise<void> {
  const session = sessions.get(id);
  if (!session) return;
  sessions.delete(id);
  await session.server.close();
}

/** Ends sessions idle for too long, and the least recently used ones past the cap. */
async function sweep(): Promise<void> {
  const now = Date.now();
  for (const [id, session] of sessions) if (now - session.lastUsed > IDLE_MS) await closeSession(id);
  const byAge = [...sessions.entries()].sort((a, b) => a[1].lastUsed - b[1].lastUsed);
  for (const [id] of byAge.slice(0, Math.max(0, byAge.length - MAX_SESSIONS + 1))) await closeSession(id);
}

/** The session's event stream, marked so that no compression between here and the client holds events back. */
function unbuffered(response: Response): Response {
  const headers = new Headers(response.headers);
  headers.set("cache-control", "no-cache, no-transform");
  return new Response(response.body, { status: response.status, headers });
}

/** Whether a POST's body is (or, in a batch, holds) an initialize request. */
function initializes(message: McpMessage): boolean {
  if (typeof message !== "object") return false;
  return Array.isArray(message.json) ? message.json.some(isInitializeRequest) : isInitializeRequest(message.json);
}

/**
 * Serves a request that belongs to a session (it carries Mcp-Session-Id) or starts one (an
 * initialize POST); anything else returns null for the stateless path.
 */
export async function handleSessionRequest(request: Request, identity: ClientSide, message: McpMessage): Promise<Response | null> {
  const caller = request.headers.get(PRINCIPAL_HEADER) ?? "anonymous";
  const id = request.headers.get(SESSION_HEADER);
  if (id !== null) {
    const session = sessions.get(id);
    // 404 tells a client its session is gone and it should initialize again (the spec's rule).
    if (!session || session.caller !== caller) return jsonRpcError(404, "no such MCP session (it ended or expired); initialize again");
    session.lastUsed = Date.now();
    const response = await session.transport.handleRequest(request, parsed(message));
    if (request.method === "DELETE") await closeSession(id);
    return request.method === "GET" ? unbuffered(response) : response;
  }
  if (!initializes(message)) return null;
  await sweep();
  const server = createMcpServer({ defaultClient: identity, subscriptions: true, repoPathAllowed: isLocalCaller(request) });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    enableJsonResponse: true,
    onsessioninitialized: (sessionId) => void sessions.set(sessionId, { server, transport, caller, lastUsed: Date.now() }),
    onsessionclosed: (sessionId) => void closeSession(sessionId),
  });
  await server.connect(transport);
  return transport.handleRequest(request, parsed(message));
}

/** How many sessions are open (tests and the memory figure in the bench). */
export const openSessionCount = () => sessions.size;
