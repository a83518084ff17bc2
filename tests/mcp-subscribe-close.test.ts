import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { describe, expect, it } from "vitest";
import { changeFeedStats } from "../lib/changes";
import { createHandoff } from "../lib/handoffs";
import { createMcpServer } from "../lib/mcp/create-server";

/** A Baton MCP server with subscriptions (as an HTTP session's) and a client, linked in this process. */
async function connected(): Promise<{ client: Client; close: () => Promise<void> }> {
  const server = createMcpServer({ subscriptions: true, log: () => {} });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "baton-test", version: "0.0.0" });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return { client, close: () => server.close() };
}

// A subscribe looks its subject up before it opens a change-feed subscription; a connection that
// closes meanwhile (a session's DELETE, a revoked token, the idle sweep) must not leave one open.
describe("a subscribe in flight when its connection closes", () => {
  it("leaves no change-feed subscriber behind", async () => {
    const { handoff } = await createHandoff({ title: "Followed while the session ends", content: "Opening context" });
    const uri = `baton://handoffs/${handoff.id}`;
    const before = changeFeedStats().subscribers;
    for (let round = 0; round < 5; round++) {
      const { client, close } = await connected();
      const subscribing = client.subscribeResource({ uri }).catch(() => "closed");
      await close();
      await subscribing;
    }
    // A whole subscribe after them, then its close: the ones above have run their course by then.
    const { client, close } = await connected();
    await client.subscribeResource({ uri });
    await close();
    await expect.poll(() => changeFeedStats().subscribers).toBe(before);
  });
});
