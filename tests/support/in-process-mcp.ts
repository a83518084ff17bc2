import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createMcpServer } from "../../lib/mcp/create-server";

/**
 * A client connected to a Baton MCP server in this process (linked in-memory transports): the
 * real server and tools on this test's database, without spawning anything. Server log lines
 * are collected so a test can check nothing unexpected was logged.
 */
export async function connectInProcessClient(): Promise<{ client: Client; logs: string[]; close: () => Promise<void> }> {
  const logs: string[] = [];
  const server = createMcpServer({ log: (line) => logs.push(line) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "baton-test", version: "0.0.0" });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return {
    client,
    logs,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}
