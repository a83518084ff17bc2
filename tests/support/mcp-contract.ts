import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "vitest";
import { BATON_TOOL_NAMES } from "./mcp-clients";

/**
 * What any Baton stdio server must answer, however it was started (the checkout, the published
 * package on each Node line): every tool with its output schema, a thread written as chat and read
 * as code with the entry new to it, and -32002 for a resource that is not there. Resolves to the
 * handoff's ID.
 */
export async function expectMcpContract(client: Client, options: { title: string }): Promise<string> {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual(BATON_TOOL_NAMES);
  for (const tool of tools) expect(tool.outputSchema, tool.name).toBeDefined();
  const created = await client.callTool({ name: "create_handoff", arguments: { title: options.title, content: "Written from chat", as_client: "chat" } });
  expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
  const { handoff } = created.structuredContent as { handoff: { id: string } };
  const read = await client.callTool({ name: "get_handoff", arguments: { id: handoff.id, as_client: "code" } });
  expect(read.structuredContent).toMatchObject({ handoff: { id: handoff.id, title: options.title }, new_count: 1 });
  const missing = await client.readResource({ uri: "baton://handoffs/hof_AAAAAAAAAAAAAAAAAAAAA" }).then(
    () => null,
    (error: unknown) => error,
  );
  expect(missing).toBeInstanceOf(McpError);
  expect((missing as McpError).code).toBe(-32002);
  return handoff.id;
}
