import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { checkOutputsSynchronously, defineTool, deliverRequestsDirectly, outputChecksCompiled, registerTool } from "../lib/mcp/tool-kit";

/**
 * lib/mcp/tool-kit.ts replaces the SDK's private output check with a synchronous one (zod's
 * compiled parser) and hands requests to its private request handling directly: these keep both
 * honest across SDK upgrades.
 */
const countTool = defineTool({
  name: "count",
  title: "Count",
  description: "Answers with a count, or with a wrong shape when asked to",
  input: z.object({ wrong: z.boolean() }),
  output: z.object({ count: z.number().int() }),
  annotations: { readOnlyHint: true },
  // The wrong answer is the point of the test: the cast gets it past the type check only.
  run: async (args) => (args.wrong ? ({ count: "three" } as unknown as { count: number }) : { count: 3 }),
});

async function connected(server: McpServer): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "output-check-test", version: "1.0.0" });
  await client.connect(clientSide);
  return client;
}

describe("the synchronous output check", () => {
  it("replaces a method the SDK still has", () => {
    const sdkMethod = (McpServer.prototype as unknown as Record<string, unknown>).validateToolOutput;
    expect(typeof sdkMethod).toBe("function");
    const server = new McpServer({ name: "t", version: "1" });
    checkOutputsSynchronously(server);
    expect((server as unknown as Record<string, unknown>).validateToolOutput).not.toBe(sdkMethod);
  });

  it("passes a result that matches the output schema and refuses one that does not, naming the field", async () => {
    const server = new McpServer({ name: "t", version: "1" }, { capabilities: { tools: {} } });
    checkOutputsSynchronously(server);
    registerTool(server, countTool, { log: () => {} });
    const client = await connected(server);
    const good = await client.callTool({ name: "count", arguments: { wrong: false } });
    expect(good.isError).toBeFalsy();
    expect(good.structuredContent).toEqual({ count: 3 });
    // Without the client's own check, so the server's verdict is what arrives.
    const bad = await client.callTool({ name: "count", arguments: { wrong: true } });
    expect(bad.isError).toBe(true);
    expect((bad.content as { text: string }[])[0].text).toMatch(/Output validation error: Invalid structured content for tool count:[\s\S]*count/);
    await client.close();
  });
});

describe("the output check of a list", () => {
  const listTool = defineTool({
    name: "list",
    title: "List",
    description: "Answers with entries, one of them wrong when asked to",
    input: z.object({ wrong: z.boolean() }),
    output: z.object({ entries: z.array(z.object({ seq: z.number().int(), answers: z.number().int().nullable() })) }),
    annotations: { readOnlyHint: true },
    // The wrong entry is the point of the test: the cast gets it past the type check only.
    run: async (args) => ({ entries: [{ seq: 1, answers: null }, { seq: 2, answers: (args.wrong ? "1" : 1) as unknown as number }] }),
  });

  it("passes the list and refuses one entry of the wrong type, naming where it is, before and after its check is compiled", async () => {
    const server = new McpServer({ name: "t", version: "1" }, { capabilities: { tools: {} } });
    checkOutputsSynchronously(server);
    registerTool(server, listTool, { log: () => {} });
    const client = await connected(server);
    const refusal = async () => {
      const bad = await client.callTool({ name: "list", arguments: { wrong: true } });
      expect(bad.isError).toBe(true);
      expect((bad.content as { text: string }[])[0].text).toMatch(/Output validation error: Invalid structured content for tool list:[\s\S]*entries\[1\]\.answers/);
    };
    // The tool's first answer is checked by zod while Ajv compiles its schema; the later ones by Ajv.
    await refusal();
    expect((await client.callTool({ name: "list", arguments: { wrong: false } })).structuredContent).toEqual({ entries: [{ seq: 1, answers: null }, { seq: 2, answers: 1 }] });
    await outputChecksCompiled();
    expect((await client.callTool({ name: "list", arguments: { wrong: false } })).structuredContent).toEqual({ entries: [{ seq: 1, answers: null }, { seq: 2, answers: 1 }] });
    await refusal();
    await client.close();
  });
});

describe("requests delivered directly", () => {
  it("use a method the SDK still has", () => {
    expect(typeof (Protocol.prototype as unknown as Record<string, unknown>)._onrequest).toBe("function");
  });

  it("are answered as before, and the server's own requests still get their answers and notifications still arrive", async () => {
    const server = new McpServer({ name: "t", version: "1" }, { capabilities: { tools: {} } });
    checkOutputsSynchronously(server);
    registerTool(server, countTool, { log: () => {} });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    deliverRequestsDirectly(server, serverSide);
    let initialized = false;
    server.server.oninitialized = () => (initialized = true);
    const client = new Client({ name: "direct-test", version: "1.0.0" });
    await client.connect(clientSide);
    expect((await client.callTool({ name: "count", arguments: { wrong: false } })).structuredContent).toEqual({ count: 3 });
    await expect(client.callTool({ name: "count", arguments: { wrong: "yes" } })).resolves.toMatchObject({ isError: true });
    await expect(client.request({ method: "no/such-method" }, z.object({}))).rejects.toThrow(/Method not found/);
    // A notification (notifications/initialized, sent by connect) and a response to the server's own request.
    expect(initialized).toBe(true);
    await expect(server.server.ping()).resolves.toEqual({});
    await client.close();
  });
});
