import "server-only";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CLIENT_SIDES, type ClientSide } from "../handoffs/schemas";
import { createMcpServer } from "./create-server";
import { BODY_LIMITS } from "../guard/policy";
import { ACT_AS_HEADER, PRINCIPAL_HEADER } from "../guard/stamp";

/** A refusal in JSON-RPC's error shape, which MCP clients show, with the one-line reason. */
export function refusal(status: number, reason: string): Response {
  return Response.json(
    { jsonrpc: "2.0", error: { code: -32000, message: reason }, id: null },
    { status, headers: { "cache-control": "no-store" } },
  );
}

/**
 * `/api/mcp?as=code` gives calls without `as_client` the code identity, like `baton mcp --as code`;
 * without `?as=`, a connector's grant gives the side it was approved for (stamped by the guard).
 */
export function identityOf(request: Request): ClientSide | "invalid" {
  const value = new URL(request.url).searchParams.get("as");
  if (value === null || value === "") return CLIENT_SIDES.find((side) => side === request.headers.get(ACT_AS_HEADER)) ?? "chat";
  return CLIENT_SIDES.find((side) => side === value.toLowerCase()) ?? "invalid";
}

/** A caller the guard admitted as the operator at this machine's desk (loopback, no token). */
export function isLocalCaller(request: Request): boolean {
  return request.headers.get(PRINCIPAL_HEADER) === "local";
}

/**
 * Servers with every tool registered, waiting for their next request, per identity and caller kind. Building one
 * (nine tools, their schemas) costs about as much as the append it serves; connecting a built one
 * to a fresh transport costs microseconds. A server serves one request at a time, so concurrent
 * requests take several; more than MAX_IDLE left over after a burst are dropped.
 */
const idle = new Map<string, McpServer[]>();
const MAX_IDLE = 16;

/** A POST's body, read once for the whole door: its JSON, "unparsable", or a refusal when too large. */
export type McpMessage = { json: unknown } | "unparsable" | "none";

/**
 * Reads and parses a POST's JSON-RPC body once, for the session check and the transport alike.
 * The guard already refused larger declared bodies; this bounds what is read all the same.
 */
export async function readMcpMessage(request: Request): Promise<McpMessage | Response> {
  const text = await request.text();
  if (Buffer.byteLength(text, "utf8") > BODY_LIMITS.import) return refusal(413, `the request body is over ${BODY_LIMITS.import} bytes`);
  try {
    return { json: JSON.parse(text) };
  } catch {
    return "unparsable";
  }
}

/**
 * What the transport gets: the parsed body; or nothing, and its own read of the spent body fails
 * into the JSON-RPC parse error (after its Accept and Content-Type checks) exactly as before.
 */
export const parsed = (message: McpMessage) => (typeof message === "object" ? { parsedBody: message.json } : undefined);

/**
 * One stateless Streamable HTTP exchange: a fresh transport (JSON responses, no session; the SDK
 * refuses to reuse a stateless one) connected to an idle server for this POST and closed once the
 * response is made. Host, Origin, credentials and the body limit were checked by the guard
 * (lib/guard) before this runs.
 */
export async function handleMcpHttpRequest(request: Request, identity: ClientSide, message: McpMessage): Promise<Response> {
  const local = isLocalCaller(request);
  const pool = idle.get(`${identity}:${local}`) ?? [];
  idle.set(`${identity}:${local}`, pool);
  const server = pool.pop() ?? createMcpServer({ defaultClient: identity, repoPathAllowed: local });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, parsed(message));
  } finally {
    await server.close();
    if (pool.length < MAX_IDLE) pool.push(server);
  }
}

/** GET (the session's SSE stream) and DELETE (end it) need a session (lib/mcp/http-sessions.ts). */
export function methodNotAllowed(): Response {
  return Response.json(
    {
      jsonrpc: "2.0",
      error: { code: -32000, message: "GET and DELETE need an Mcp-Session-Id from an initialize; send JSON-RPC requests with POST" },
      id: null,
    },
    { status: 405, headers: { allow: "POST" } },
  );
}
