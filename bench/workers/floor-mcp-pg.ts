/**
 * The stdio floor on PostgreSQL for `npm run bench -- speed` (part postgres): the official SDK's
 * McpServer over stdio with an add_to_handoff tool shaped like Baton's, running the same
 * one-statement append (floor-pg-append.ts: Baton's own) on one pg connection. Runs bundled, with plain Node,
 * like Baton's prebuilt server. Env: FLOOR_DATABASE_URL.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import pg from "pg";
import { z } from "zod";
import { appendQuery } from "./floor-pg-append";

const client = new pg.Client({ connectionString: process.env.FLOOR_DATABASE_URL });
await client.connect();
const server = new McpServer({ name: "floor", version: "1.0.0" }, { capabilities: { tools: {} } });
const side = z.enum(["chat", "code"]).optional();

server.registerTool(
  "add_to_handoff",
  { description: "Append an entry", inputSchema: { id: z.string(), type: z.string(), content: z.string(), as_client: side } },
  async (args) => {
    const asClient = args.as_client ?? "chat";
    const { rows } = await client.query(appendQuery(args.id, asClient, args.type, args.content));
    if (typeof rows[0]?.seq !== "number") return { content: [{ type: "text" as const, text: "not an active handoff" }], isError: true };
    return { content: [{ type: "text" as const, text: JSON.stringify(rows[0]) }] };
  },
);
await server.connect(new StdioServerTransport());
process.stdin.once("end", () => void server.close().then(() => client.end()));
