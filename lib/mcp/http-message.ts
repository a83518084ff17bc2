/**
 * The MCP HTTP door's plumbing, shared by the stateless path (handle-http.ts) and sessions
 * (http-sessions.ts): the refusal shape and the POST body, read once.
 */
import "server-only";
import { BODY_LIMITS } from "../guard/body-limits";
import { NOT_UTF8, utf8BodyOf } from "../http";

/** A refusal in JSON-RPC's error shape, which MCP clients show, with the one-line reason. */
export function refusal(status: number, reason: string, headers: Record<string, string> = {}): Response {
  return Response.json({ jsonrpc: "2.0", error: { code: -32000, message: reason }, id: null }, { status, headers: { "cache-control": "no-store", ...headers } });
}

/** A POST's body, read once for the whole door: its JSON, "unparsable", or none (GET, DELETE). */
export type McpMessage = { json: unknown } | "unparsable" | "none";

/**
 * Reads and parses a POST's JSON-RPC body once, for the session check and the transport alike.
 * The guard already refused larger declared bodies; this bounds what is read all the same.
 */
export async function readMcpMessage(request: Request): Promise<McpMessage | Response> {
  const text = await utf8BodyOf(request);
  if (text === null) return refusal(400, NOT_UTF8);
  if (Buffer.byteLength(text, "utf8") > BODY_LIMITS.mcp) return refusal(413, `the request body is over ${BODY_LIMITS.mcp} bytes`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return "unparsable";
  }
  return Array.isArray(json) ? (batchRefusal(json) ?? { json }) : { json };
}

const invalidRequest = (reason: string) =>
  Response.json({ jsonrpc: "2.0", error: { code: -32600, message: `Invalid Request: ${reason}` }, id: null }, { status: 400, headers: { "cache-control": "no-store" } });

/**
 * A batch the transport would serve wrongly, refused before any of it runs: an empty one (JSON-RPC
 * 2.0 answers it Invalid Request; the SDK answered 202), or one whose requests share an id (the
 * SDK ran every one, a write stored each time, and answered only the first).
 */
function batchRefusal(batch: unknown[]): Response | null {
  if (batch.length === 0) return invalidRequest("an empty batch holds no request; send one JSON-RPC message, or an array of them");
  const ids = new Set<unknown>();
  for (const member of batch) {
    if (typeof member !== "object" || member === null || !("method" in member) || !("id" in member)) continue;
    if (ids.has(member.id)) return invalidRequest(`requests in one batch share the id ${JSON.stringify(member.id)}; give each its own id: nothing was run`);
    ids.add(member.id);
  }
  return null;
}

/**
 * What the transport gets: the parsed body; or nothing, and its own read of the spent body fails
 * into the JSON-RPC parse error (after its Accept and Content-Type checks).
 */
export const parsed = (message: McpMessage) => (typeof message === "object" ? { parsedBody: message.json } : undefined);
