import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ListToolsRequestSchema, type ListToolsResult } from "@modelcontextprotocol/sdk/types.js";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type ProtocolHandler = (request: unknown, extra: unknown) => Promise<ListToolsResult>;

/** Keywords whose values are data (an instance), not subschemas: a `type` inside them is not a keyword. */
const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples"]);

/**
 * A JSON Schema with every `type` array (`["string", "null"]`) written as `anyOf` of single
 * types (`[{ "type": "string" }, { "type": "null" }]`), which accepts exactly the same values.
 * Keywords beside the array stay where they are: a type-specific one (`maxLength`) ignores
 * values of the other types either way.
 */
export function withSingleTypes(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(withSingleTypes);
  if (schema === null || typeof schema !== "object") return schema;
  const result: Record<string, Json> = {};
  for (const [key, value] of Object.entries(schema)) result[key] = DATA_KEYWORDS.has(key) ? value : withSingleTypes(value);
  const types = schema.type;
  if (Array.isArray(types) && result.anyOf === undefined) {
    delete result.type;
    result.anyOf = types.map((type) => ({ type }));
  }
  return result;
}

/**
 * zod 4 writes a nullable field as `type: ["string", "null"]` (it folds `anyOf` branches that are
 * bare types into one array, with no option to turn that off, and the SDK calls it with fixed
 * options). That is legal JSON Schema but not portable: clients that map tool schemas onto a
 * single-`type` dialect (the OpenAPI subset of Gemini's function declarations) reject such a
 * tool, and MCP Inspector's lint warns once per field. This wraps the SDK's tools/list handler so
 * every inputSchema and outputSchema goes out through `withSingleTypes`. Only what is advertised
 * changes: arguments and results are still checked against the tools' zod schemas. Call it after
 * the tools are registered (the SDK sets its handler on the first registerTool); it throws, so
 * no server starts, if the SDK keeps the handler elsewhere.
 */
export function advertiseSingleTypes(server: McpServer): void {
  // The SDK's handler is private to its Protocol class; setRequestHandler can replace it, not read it.
  const handlers = (server.server as unknown as { _requestHandlers?: Map<string, ProtocolHandler> })._requestHandlers;
  const listTools = handlers?.get(ListToolsRequestSchema.shape.method.value);
  if (!listTools) throw new Error("the MCP SDK no longer keeps its tools/list handler in Protocol._requestHandlers; update lib/mcp/single-type-schemas.ts");
  server.server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    const listed = await listTools(request, extra);
    return {
      ...listed,
      tools: listed.tools.map((tool) => ({
        ...tool,
        inputSchema: withSingleTypes(tool.inputSchema as Json) as typeof tool.inputSchema,
        ...(tool.outputSchema && { outputSchema: withSingleTypes(tool.outputSchema as Json) as typeof tool.outputSchema }),
      })),
    };
  });
}
