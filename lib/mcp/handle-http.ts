import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CLIENT_SIDES, type ClientSide } from "../handoffs/schemas";
import { createMcpServer } from "./create-server";
import { checkMcpRequest, mcpHttpPolicy, requestFacts, type McpHttpPolicy } from "./http-security";

/** A refusal in JSON-RPC's error shape, which MCP clients show, with the one-line reason. */
function refusal(status: number, reason: string, headers: Record<string, string> = {}): Response {
  return Response.json(
    { jsonrpc: "2.0", error: { code: -32000, message: reason }, id: null },
    { status, headers: { ...headers, "cache-control": "no-store" } },
  );
}

/** `/api/mcp?as=code` gives calls without `as_client` the code identity, like `baton mcp --as code`. */
function identityOf(request: Request): ClientSide | "invalid" {
  const value = new URL(request.url).searchParams.get("as");
  if (value === null || value === "") return "chat";
  return CLIENT_SIDES.find((side) => side === value.toLowerCase()) ?? "invalid";
}

export type HandleMcpHttpOptions = { policy?: McpHttpPolicy };

/**
 * One stateless Streamable HTTP exchange: security checks, then a fresh server and transport
 * for this POST (JSON responses, no session), closed once the response is made.
 */
export async function handleMcpHttpRequest(request: Request, options: HandleMcpHttpOptions = {}): Promise<Response> {
  const policy = options.policy ?? mcpHttpPolicy();
  const verdict = checkMcpRequest(policy, requestFacts(request));
  if (!verdict.ok) {
    const challenge: Record<string, string> = verdict.status === 401 ? { "www-authenticate": 'Bearer realm="baton"' } : {};
    return refusal(verdict.status, verdict.reason, challenge);
  }
  const identity = identityOf(request);
  if (identity === "invalid") return refusal(400, 'the as query parameter must be "chat" or "code"');
  const server = createMcpServer({ defaultClient: identity });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    // Bodies without a Content-Length are measured while they stream in.
    maxRequestBodySize: policy.maxBodyBytes,
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
