/**
 * The stdio floor for `npm run bench -- speed`: the official SDK's McpServer over stdio with two
 * tools named and shaped like Baton's (add_to_handoff, get_handoff) on raw better-sqlite3
 * (floor-store.ts). Runs bundled, with plain Node, like Baton's prebuilt server.
 * Env: FLOOR_DATABASE (the SQLite file).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";
import { openFloorStore } from "./floor-store";

const store = openFloorStore(process.env.FLOOR_DATABASE ?? "");
const server = new McpServer({ name: "floor", version: "1.0.0" }, { capabilities: { tools: {} } });
const side = z.enum(["chat", "code"]).optional();

function answer(work: () => unknown) {
  try {
    return { content: [{ type: "text" as const, text: JSON.stringify(work()) }] };
  } catch (error) {
    return { content: [{ type: "text" as const, text: (error as Error).message }], isError: true };
  }
}

server.registerTool(
  "add_to_handoff",
  { description: "Append an entry", inputSchema: { id: z.string(), type: z.string(), content: z.string(), as_client: side } },
  (args) => answer(() => store.append(args.id, args.as_client ?? "chat", args.type, args.content)),
);
server.registerTool("get_handoff", { description: "Read a handoff", inputSchema: { id: z.string(), as_client: side } }, (args) =>
  answer(() => store.read(args.id)),
);
await server.connect(new StdioServerTransport());
process.stdin.once("end", () => void server.close());
