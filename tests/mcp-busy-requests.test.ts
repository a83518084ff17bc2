import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerAgent, triggerHandoff } from "../lib/agents";
import { read } from "../lib/database";
import { createHandoff } from "../lib/handoffs";
import { RESOURCE_NOT_FOUND } from "../lib/mcp/resources";
import { connectStdioClient } from "./support/mcp-clients";
import { rejectionOf } from "./support/rejection";
import { holdSqliteLock } from "./support/sqlite-lock";

/**
 * resources/* and prompts/get over a real `baton mcp` (stdio) when the database is busy past its
 * wait: JSON-RPC -32603 (internal error) carrying the Unavailable's message (nothing stored, send
 * it again), never -32602 "invalid params", which tells a client its request was wrong. What names
 * nothing keeps its own answers: -32002 for a resource, -32602 for a prompt's argument.
 * SQLite: another process holds the write lock (a shift document's read records the successor's
 * read, a write). PostgreSQL: another session holds the tables past a short lock_timeout (reads too).
 */
const engine = process.env.BATON_TEST_ENGINE === "postgres" ? "postgres" : "sqlite";
// The client's McpError says the code before the server's message, once.
const BUSY = /^MCP error -32603: the database is busy: .*; nothing of this request was stored; send the same request again in a moment$/;

let agentId = 0;
let handoffId = "";
beforeAll(async () => {
  handoffId = (await createHandoff({ title: "Busy reads", content: "first" })).handoff.id;
  const agent = await registerAgent({ personaSlug: "developer-busy-1", project: "baton" });
  agentId = (await triggerHandoff({ agentId: agent.id, reason: "shift_end", document: "# Handoff\n\n## Goal\nShip it.\n" })).record.agentId;
});

const refusal = (request: Promise<unknown>) => rejectionOf(request, McpError);

/** Another process holding SQLite's write lock until released. */
async function sqliteWriteLock(): Promise<() => Promise<void>> {
  return (await holdSqliteLock("write")).release;
}

/** Another session holding Baton's tables (ACCESS EXCLUSIVE: reads wait too) until released. */
async function postgresTableLock(): Promise<() => Promise<void>> {
  const holder = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await holder.connect();
  await holder.query("BEGIN");
  await holder.query("LOCK TABLE handoffs, handoff_entries, agents, handoff_records IN ACCESS EXCLUSIVE MODE");
  return async () => {
    await holder.query("ROLLBACK");
    await holder.end();
  };
}

describe(`resources and prompts over stdio with the database busy (${engine})`, () => {
  let client: Client;
  let stderr: () => string;
  beforeAll(async () => {
    const env: Record<string, string> = { BATON_BUSY_TIMEOUT_MS: "300" };
    if (engine === "postgres") {
      // lock_timeout is the server's setting (a role's, or DATABASE_URL's options) that Baton leaves as it is.
      const url = new URL(process.env.DATABASE_URL!);
      url.searchParams.set("options", "-c lock_timeout=300");
      env.DATABASE_URL = url.toString();
    }
    ({ client, stderr } = await connectStdioClient({ env }));
  }, 60_000);
  afterAll(async () => {
    await client?.close();
  });

  it("a busy database answers -32603 with the busy message, and stores nothing; what names nothing still answers -32002 or -32602", async () => {
    const release = engine === "postgres" ? await postgresTableLock() : await sqliteWriteLock();
    try {
      const busyRequests: (() => Promise<unknown>)[] = [() => client.readResource({ uri: `baton://agents/${agentId}/handoff` })];
      if (engine === "postgres") {
        busyRequests.push(
          () => client.readResource({ uri: `baton://handoffs/${handoffId}` }),
          () => client.listResources(),
          () => client.getPrompt({ name: "pickup", arguments: { id: handoffId } }),
          () => client.getPrompt({ name: "end_shift", arguments: { agent: String(agentId) } }),
        );
      }
      for (const request of busyRequests) {
        const error = await refusal(request());
        expect(error.code).toBe(ErrorCode.InternalError);
        expect(error.message).toMatch(BUSY);
      }
    } finally {
      await release();
    }
    // Let go, the names that mean nothing keep their answers.
    expect((await refusal(client.readResource({ uri: "baton://handoffs/hof_AAAAAAAAAAAAAAAAAAAAA" }))).code).toBe(RESOURCE_NOT_FOUND);
    expect((await refusal(client.getPrompt({ name: "pickup", arguments: { id: "hof_AAAAAAAAAAAAAAAAAAAAA" } }))).code).toBe(ErrorCode.InvalidParams);
    // The refused read recorded nothing: the successor has not read the document yet.
    const record = await read((tx) => tx.get<{ read_at: string | null }>("SELECT read_at FROM handoff_records WHERE agent_id = ?", [agentId]));
    expect(record?.read_at).toBeNull();
    // Refusals, not failures: no stack in the server's log.
    expect(stderr()).not.toMatch(/failed|^\s+at /m);
    // And the same read goes through now.
    expect((await client.readResource({ uri: `baton://agents/${agentId}/handoff` })).contents[0]).toMatchObject({ mimeType: "text/markdown" });
  }, 60_000);
});
