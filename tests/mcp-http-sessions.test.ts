import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DELETE, GET, POST } from "../app/api/mcp/route";
import { PRINCIPAL_HEADER } from "../lib/guard/stamp";
import { openSessionCount } from "../lib/mcp/http-sessions";
import { serveHandlers } from "./support/mcp-clients";

/** Streamable HTTP sessions (lib/mcp/http-sessions.ts) through the real route, without the guard in front. */
let served: Awaited<ReturnType<typeof serveHandlers>>;
beforeAll(async () => {
  served = await serveHandlers({ "/api/mcp": { POST, GET, DELETE } });
});
afterAll(() => served?.close());

const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "sessions-test", version: "1" } },
});
const toolsList = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
const post = (body: string, extra: Record<string, string> = {}) => fetch(`${served.origin}/api/mcp`, { method: "POST", headers: { ...headers, ...extra }, body });

async function openSession(caller: string): Promise<string> {
  const response = await post(initialize, { [PRINCIPAL_HEADER]: caller });
  expect(response.status).toBe(200);
  const id = response.headers.get("mcp-session-id");
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  return id!;
}

describe("MCP sessions over HTTP", () => {
  it("an initialize opens a session that only its caller can use; DELETE ends it", async () => {
    const before = openSessionCount();
    const id = await openSession("agent:worker");
    expect(openSessionCount()).toBe(before + 1);
    const listed = await post(toolsList, { "mcp-session-id": id, [PRINCIPAL_HEADER]: "agent:worker" });
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThanOrEqual(10);

    const stolen = await post(toolsList, { "mcp-session-id": id, [PRINCIPAL_HEADER]: "agent:mallory" });
    expect(stolen.status).toBe(404);
    expect(((await stolen.json()) as { error: { message: string } }).error.message).toMatch(/no such MCP session/);

    const ended = await fetch(`${served.origin}/api/mcp`, { method: "DELETE", headers: { "mcp-session-id": id, [PRINCIPAL_HEADER]: "agent:worker" } });
    expect(ended.status).toBe(200);
    expect(openSessionCount()).toBe(before);
    expect((await post(toolsList, { "mcp-session-id": id, [PRINCIPAL_HEADER]: "agent:worker" })).status).toBe(404);
  });

  it("an unknown session id is 404, GET and DELETE without one are 405, and a request without one is served statelessly", async () => {
    expect((await post(toolsList, { "mcp-session-id": "00000000-0000-0000-0000-000000000000" })).status).toBe(404);
    expect((await fetch(`${served.origin}/api/mcp`, { headers: { accept: "text/event-stream" } })).status).toBe(405);
    expect((await fetch(`${served.origin}/api/mcp`, { method: "DELETE" })).status).toBe(405);
    const stateless = await post(toolsList);
    expect(stateless.status).toBe(200);
    expect(stateless.headers.get("mcp-session-id")).toBeNull();
  });
});

describe("repo_path over HTTP", () => {
  const createWith = (caller: string) =>
    post(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "create_handoff", arguments: { title: "repo path", content: "x", repo_path: process.cwd() } },
      }),
      { [PRINCIPAL_HEADER]: caller },
    ).then((response) => response.json() as Promise<{ result: { isError?: boolean; content: { text: string }[] } }>);

  it("is honoured for the operator at this machine's desk and refused for a remote token holder, who could point git at any folder", async () => {
    expect((await createWith("local")).result.isError).toBeFalsy();
    const remote = await createWith("agent:laptop");
    expect(remote.result.isError).toBe(true);
    expect(remote.result.content[0].text).toMatch(/repo_path is read only for callers on Baton's own machine/);
  });
});

describe("the body, read once for the whole door", () => {
  it("answers a body that is not JSON with JSON-RPC's parse error, after the transport's Accept check, as the SDK does", async () => {
    const notJson = await post("{not json");
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: { code: number } }).error.code).toBe(-32700);
    const notAccepted = await fetch(`${served.origin}/api/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "text/html" }, body: "{not json" });
    expect(notAccepted.status).toBe(406);
  });

  it("refuses a body over the door's limit even without the guard in front", async () => {
    const big = await post(JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list", params: { pad: "x".repeat(1024 * 1024) } }));
    expect(big.status).toBe(413);
  });
});
