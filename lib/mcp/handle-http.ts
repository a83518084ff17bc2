import "server-only";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CLIENT_SIDES, type ClientSide } from "../handoffs/schemas";
import { createMcpServer } from "./create-server";
import { BODY_LIMITS } from "../guard/policy";

/** A refusal in JSON-RPC's error shape, which MCP clients show, with the one-line reason. */
function refusal(status: number, reason: string): Response {
  return Response.json(
    { jsonrpc: "2.0", error: { code: -32000, message: reason }, id: null },
    { status, headers: { "cache-control": "no-store" } },
  );
}

/** `/api/mcp?as=code` gives calls without `as_client` the code identity, like `baton mcp --as code`. */
function identityOf(request: Request): ClientSide | "invalid" {
  const value = new URL(request.url).searchParams.get("as");
  if (value === null || value === "") return "chat";
  return CLIENT_SIDES.find((side) => side === value.toLowerCase()) ?? "invalid";
}

/**
 * One stateless Streamable HTTP exchange: a fresh server and transport for this POST (JSON
 * responses, no session), closed once the response is made. Host, Origin, credentials and the
 * body limit were checked by the guard (lib/guard) before this runs.
 */
export async function handleMcpHttpRequest(request: Request): Promise<Response> {
  const identity = identityOf(request);
  if (identity === "invalid") return refusal(400, 'the as query parameter must be "chat" or "code"');
  const server = createMcpServer({ defaultClient: identity });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    // The guard already refused larger declared bodies; this bounds what the transport reads.
    maxRequestBodySize: BODY_LIMITS.import,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    await server.close();
  }
}

/** GET (an SSE stream) and DELETE (end a session) have no meaning for a stateless server. */
export function methodNotAllowed(): Response {
  return Response.json(
    { jsonrpc: "2.0", error: { code: -32000, message: "this MCP endpoint is stateless: send JSON-RPC requests with POST" }, id: null },
    { status: 405, headers: { allow: "POST" } },
  );
}
