import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { Invalid, isDomainError, NotFound, Unavailable } from "../errors";

/**
 * The one mapping of a failed resources/* or prompts/get request to its JSON-RPC error (tools
 * answer with tool errors instead: lib/mcp/tool-errors.ts). As the MCP spec says for these
 * methods: what the request names does not exist or is malformed, `notFound` (resources: -32002
 * "Resource not found"; prompts: -32602 invalid params); the database busy or away, -32603
 * internal error carrying the Unavailable's message (nothing was stored, send it again), not
 * "invalid params", which told a client to change a request that was right; any other domain
 * refusal, -32602; anything unexpected, -32603 with the details logged, not sent.
 */
export async function answeringRequestErrors<T>(
  work: () => Promise<T>,
  options: {
    notFound: (message: string) => McpError;
    data?: Record<string, unknown>;
    log: (line: string) => void;
    /** What was asked, for the log ("resource baton://…", "prompt pickup"). */
    request: string;
    /** The answer to an unexpected failure, whose details only the log gets. */
    unexpected: string;
  },
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof McpError) throw error;
    if (error instanceof NotFound || error instanceof Invalid) throw options.notFound(error.message);
    if (error instanceof Unavailable) throw new McpError(ErrorCode.InternalError, error.message, options.data);
    if (isDomainError(error)) throw new McpError(ErrorCode.InvalidParams, error.message, options.data);
    options.log(`${options.request} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    throw new McpError(ErrorCode.InternalError, options.unexpected, options.data);
  }
}
