import { handleMcpHttpRequest, methodNotAllowed } from "@/lib/mcp/handle-http";

/** Baton's MCP tools over Streamable HTTP (stateless); the guard (lib/guard) checks every request before it gets here. */
export function POST(request: Request): Promise<Response> {
  return handleMcpHttpRequest(request);
}

export function GET(): Response {
  return methodNotAllowed();
}

export function DELETE(): Response {
  return methodNotAllowed();
}
