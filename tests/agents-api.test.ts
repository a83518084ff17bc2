import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { dataDir } from "../lib/config";
import { storedDate, write } from "../lib/database";
import { apiServerForFile } from "./support/api-server";
import { connectHttpClient } from "./support/mcp-clients";

const api = apiServerForFile();
const route = api.route;

const chainRoute = route("GET", "/api/agents/:id/chain");
const documentRoute = route("GET", "/api/agents/:id/document");
const endRoute = route("POST", "/api/agents/:id/end");
const handoffRoute = route("POST", "/api/agents/:id/handoff");
const getRoute = route("GET", "/api/agents/:id");
const patchRoute = route("PATCH", "/api/agents/:id");
const listRoute = route("GET", "/api/agents");
const registerRoute = route("POST", "/api/agents");

const base = "http://127.0.0.1/api/agents";
const context = (id: string | number) => ({ params: Promise.resolve({ id: String(id) }) });
// A string body would make the request text/plain; the API takes JSON bodies as application/json only.
const send = (method: string, url: string, body?: unknown) =>
  new Request(url, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });

type Agent = { id: number; shortId: string; status: string; contextPercent: number | null };

describe("agents HTTP API", () => {
  it("reads snake_case fields as REST's, nested ones too, and refuses a field an operation does not take", async () => {
    const registered = await registerRoute(send("POST", base, { persona_slug: "snake-dev", context_percent: 12 }));
    expect(registered.status).toBe(201);
    const agent = (await registered.json()) as Agent;
    expect(agent.contextPercent).toBe(12);
    const sessionId = "7d1f6c52-0b7e-4a53-9a3c-6f1f1d2a9b10";
    const refused = await handoffRoute(send("POST", `${base}/${agent.id}/handoff`, { reason: "shift_end", document: "## Goal\nShip it.\n", successor: { pane: "work:1" } }), context(agent.id));
    expect(refused.status).toBe(400);
    expect((await refused.json()).error.fieldErrors).toEqual({ "successor.pane": ["pane is not a field here; this takes tmuxTarget, name, sessionId"] });
    for (const [routeOf, method, url, body] of [
      [patchRoute, "PATCH", `${base}/${agent.id}`, { agentId: 999, contextPercent: 50 }],
      [handoffRoute, "POST", `${base}/${agent.id}/handoff`, { agent_id: agent.id, reason: "shift_end", document: "## Goal\nShip it.\n" }],
    ] as const) {
      const response = await routeOf(send(method, url, body), context(agent.id));
      expect(response.status, url).toBe(400);
      expect((await response.json()).error.fieldErrors, url).toEqual({ agentId: ["comes from the path"] });
    }
    // The fields a body may hold, never the agent, which the path names.
    for (const [routeOf, method, url, body, fieldErrors] of [
      [patchRoute, "PATCH", `${base}/${agent.id}`, { percent: 50 }, { percent: ["percent is not a field here; this takes contextPercent, tmuxTarget"] }],
      [handoffRoute, "POST", `${base}/${agent.id}/handoff`, { reason: "shift_end", document: "## Goal\nShip it.\n", repo: "/srv" }, { repo: ["repo is not a field here; this takes reason, document, successor, repoPath"] }],
    ] as const) {
      const response = await routeOf(send(method, url, body), context(agent.id));
      expect(response.status, url).toBe(400);
      expect((await response.json()).error.fieldErrors, url).toEqual(fieldErrors);
    }
    expect(((await (await getRoute(send("GET", `${base}/${agent.id}`), context(agent.id))).json()) as Agent).status).toBe("active");
    const handed = await handoffRoute(send("POST", `${base}/${agent.id}/handoff`, { reason: "shift_end", document: "## Goal\nShip it.\n", successor: { session_id: sessionId } }), context(agent.id));
    expect(handed.status).toBe(201);
    expect(((await handed.json()) as { successor: { sessionId: string } }).successor.sessionId).toBe(sessionId);
  });

  it("registers, reports, hands off, reads the chain and the document", async () => {
    const registered = await registerRoute(send("POST", base, { personaSlug: "api-dev", project: "api" }));
    expect(registered.status).toBe(201);
    const agent = (await registered.json()) as Agent;

    const patched = await patchRoute(send("PATCH", `${base}/${agent.shortId}`, { contextPercent: 91 }), context(agent.shortId));
    expect(((await patched.json()) as Agent).contextPercent).toBe(91);

    const document = "## Goal\nShip the API.\n";
    const handed = await handoffRoute(send("POST", `${base}/${agent.id}/handoff`, { reason: "context_limit", document }), context(agent.id));
    expect(handed.status).toBe(201);
    const { record, successor } = (await handed.json()) as { record: { reason: string; delivery: string; filePath: string }; successor: Agent };
    expect(record).toMatchObject({ reason: "context_limit", delivery: "no target" });

    const again = await handoffRoute(send("POST", `${base}/${agent.id}/handoff`, { reason: "shift_end", document }), context(agent.id));
    expect(again.status).toBe(409);
    expect((await again.json()).error.code).toBe("CONFLICT");

    const chain = await (await chainRoute(send("GET", `${base}/${successor.id}/chain`), context(successor.id))).json();
    expect(chain.predecessors.map((node: Agent) => node.id)).toEqual([agent.id]);
    expect(chain.length).toBe(2);

    const text = await documentRoute(send("GET", `${base}/${agent.id}/document`), context(agent.id));
    expect(text.headers.get("content-type")).toMatch(/^text\/markdown/);
    expect(await text.text()).toBe(document);
    // Another instance of a team server has no file: the document comes from the database.
    fs.rmSync(path.join(dataDir(), record.filePath));
    expect(await (await documentRoute(send("GET", `${base}/${agent.id}/document`), context(agent.id))).text()).toBe(document);
    expect((await documentRoute(send("GET", `${base}/${successor.id}/document`), context(successor.id))).status).toBe(404);

    const listed = await (await listRoute(send("GET", `${base}?project=api`))).json();
    expect(listed.items.map((item: Agent & { chainLength: number }) => [item.id, item.chainLength])).toEqual([
      [successor.id, 2],
      [agent.id, 2],
    ]);

    const ended = await endRoute(send("POST", `${base}/${successor.id}/end`), context(successor.id));
    expect(((await ended.json()) as Agent).status).toBe("ended");
    expect(((await (await getRoute(send("GET", `${base}/${successor.id}`), context(successor.id))).json()) as Agent).status).toBe("ended");
  });

  it("answers whether a failed delivery can still be retried: stalled while the successor works, not delivered once it has ended, over REST and MCP", async () => {
    const registered = (await (await registerRoute(send("POST", base, { personaSlug: "api-undelivered" }))).json()) as Agent;
    // No such tmux session: the delivery fails.
    const handed = await handoffRoute(send("POST", `${base}/${registered.id}/handoff`, { reason: "shift_end", document: "## Goal\nGo on.\n", successor: { tmuxTarget: "api-nowhere:0.0" } }), context(registered.id));
    const { successor } = (await handed.json()) as { successor: Agent };
    type Problem = { kind: string; message: string } | null;
    const problemOf = async () => ((await (await getRoute(send("GET", `${base}/${registered.id}`), context(registered.id))).json()) as { handoff: { deliveryProblem: Problem; successorStatus: string } }).handoff;
    const stalled = await problemOf();
    expect(stalled.successorStatus).toBe("active");
    expect(stalled.deliveryProblem?.kind).toBe("stalled");
    expect(stalled.deliveryProblem?.message).toMatch(/^The prompt did not reach the successor's pane: /);

    expect((await endRoute(send("POST", `${base}/${successor.id}/end`), context(successor.id))).status).toBe(200);
    const ended = await problemOf();
    expect(ended.successorStatus).toBe("ended");
    expect(ended.deliveryProblem?.kind).toBe("successor ended");
    expect(ended.deliveryProblem?.message).toMatch(/^Not delivered; the successor has ended, so there is no one to deliver it to \(/);
    const chain = await (await chainRoute(send("GET", `${base}/${successor.id}/chain`), context(successor.id))).json();
    expect(chain.predecessors[0].handoff.deliveryProblem).toEqual(ended.deliveryProblem);
    const listed = await (await listRoute(send("GET", `${base}?persona=api-undelivered`))).json();
    expect(listed.items.find((item: Agent) => item.id === registered.id).handoff.deliveryProblem).toEqual(ended.deliveryProblem);

    const client = await connectHttpClient(`${api.origin}/api/mcp`);
    try {
      const result = await client.callTool({ name: "get_continuity_chain", arguments: { agent: successor.id } });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      const structured = result.structuredContent as { predecessors: { handoff: { successor_status: string; delivery_problem: Problem } }[] };
      expect(structured.predecessors[0].handoff).toMatchObject({ successor_status: "ended", delivery_problem: ended.deliveryProblem });
    } finally {
      await client.close();
    }
  });

  it("refuses a context percent that is not a number from 0 to 100 (true, null, blank, [50], 0x10), storing nothing and leaving the handoff unacted", async () => {
    const agent = (await (await registerRoute(send("POST", base, { personaSlug: "percent-dev" }))).json()) as Agent;
    const handed = await handoffRoute(send("POST", `${base}/${agent.id}/handoff`, { reason: "shift_end", document: "## Goal\nKeep counting.\n" }), context(agent.id));
    const { successor } = (await handed.json()) as { successor: Agent };
    for (const contextPercent of [true, false, null, "", " ", [50], "0x10", "1e2", "50.5"]) {
      const patched = await patchRoute(send("PATCH", `${base}/${successor.id}`, { contextPercent }), context(successor.id));
      expect(patched.status, JSON.stringify(contextPercent)).toBe(400);
      expect(Object.keys((await patched.json()).error.fieldErrors), JSON.stringify(contextPercent)).toEqual(["contextPercent"]);
    }
    expect(((await (await getRoute(send("GET", `${base}/${successor.id}`), context(successor.id))).json()) as Agent).contextPercent).toBeNull();
    const outgoing = await (await getRoute(send("GET", `${base}/${agent.id}`), context(agent.id))).json();
    expect(outgoing.handoff.deliveryState).toBe("queued");
    for (const contextPercent of [true, [7]]) {
      expect((await registerRoute(send("POST", base, { personaSlug: "percent-refused", contextPercent }))).status, JSON.stringify(contextPercent)).toBe(400);
    }
    expect((await (await listRoute(send("GET", `${base}?persona=percent-refused`))).json()).total).toBe(0);
    // A number, or its digits as text, is a report.
    const reported = await patchRoute(send("PATCH", `${base}/${successor.id}`, { contextPercent: " 42 " }), context(successor.id));
    expect(((await reported.json()) as Agent).contextPercent).toBe(42);
  });

  it("writes the shift document as its owner's alone: the file 0600, the folders it makes (the data folder too) 0700", async () => {
    const shared = dataDir();
    // A data folder not made yet (a team server on PostgreSQL makes it with its first document).
    const fresh = path.join(shared, "fresh-data");
    process.env.BATON_DATA_DIR = fresh;
    try {
      const agent = (await (await registerRoute(send("POST", base, { personaSlug: "private-dev" }))).json()) as Agent;
      const handed = await handoffRoute(send("POST", `${base}/${agent.id}/handoff`, { reason: "shift_end", document: "## Goal\nThe notes.\n" }), context(agent.id));
      expect(handed.status).toBe(201);
      const { record } = (await handed.json()) as { record: { filePath: string } };
      const modeOf = (relative: string) => (fs.statSync(path.join(fresh, relative)).mode & 0o777).toString(8);
      expect(modeOf(record.filePath)).toBe("600");
      for (const folder of ["", "personas", "personas/private-dev", "personas/private-dev/handoffs"]) expect(modeOf(folder), folder || "the data folder").toBe("700");
    } finally {
      process.env.BATON_DATA_DIR = shared;
    }
  });

  it("a chain of 10,000 agents answers its 20 nearest on each side, both ends and the counts, within 256 KiB over REST and MCP", async () => {
    // 10,000 agents, each continuing from the one before, each with its handoff record: through SQL, a fixture, not a door.
    const ids = await write(async (tx) => {
      const made: number[] = [];
      for (let index = 0; index < 10_000; index++) {
        const row = await tx.get<{ id: number }>(
          "INSERT INTO agents (session_id, persona_slug, name, status, previous_agent_id, started_at) VALUES (?, 'ten-thousand', ?, 'ended', ?, ?) RETURNING id",
          [randomUUID(), `shift ${index}`, made.at(-1) ?? null, storedDate(new Date(Date.UTC(2026, 0, 1) + index * 60_000))],
        );
        made.push(row!.id);
        await tx.run(
          "INSERT INTO handoff_records (agent_id, reason, file_path, document, injection_prompt, delivery, delivery_state, created_at) VALUES (?, 'context_limit', ?, 'notes', ?, 'no target', 'queued', ?)",
          [row!.id, `personas/ten-thousand/handoffs/${index}.md`, `Continuing from Agent ${index}. ${"Read the document. ".repeat(20)}`, storedDate()],
        );
      }
      return made;
    });
    const middle = ids[5_000];
    const response = await chainRoute(send("GET", `${base}/${middle}/chain`), context(middle));
    const body = await response.text();
    expect(Buffer.byteLength(body)).toBeLessThan(256 * 1024);
    const chain = JSON.parse(body);
    expect(chain.predecessors.map((node: Agent) => node.id)).toEqual(ids.slice(4_980, 5_000));
    expect(chain.successors.map((node: Agent) => node.id)).toEqual(ids.slice(5_001, 5_021));
    expect([chain.length, chain.earlier, chain.later, chain.first.id, chain.last.id]).toEqual([10_000, 4_980, 4_979, ids[0], ids[9_999]]);

    const client = await connectHttpClient(`${api.origin}/api/mcp`);
    try {
      const result = await client.callTool({ name: "get_continuity_chain", arguments: { agent: middle } });
      const text = (result.content as { text: string }[])[0].text;
      expect(result.isError, text).toBeFalsy();
      expect(Buffer.byteLength(text)).toBeLessThan(256 * 1024);
      const structured = result.structuredContent as { predecessors: unknown[]; successors: unknown[]; length: number; earlier: number; later: number; first: { id: number } };
      expect([structured.predecessors.length, structured.successors.length, structured.length, structured.earlier, structured.later, structured.first.id]).toEqual([20, 20, 10_000, 4_980, 4_979, ids[0]]);
    } finally {
      await client.close();
    }
  }, 60_000);

  it("takes a document under 256 KiB however its JSON is escaped (Python's json.dumps writes \\u043f for п), and answers one over it with the document's own 400", async () => {
    const agent = (await (await registerRoute(send("POST", base, { personaSlug: "escaped-dev" }))).json()) as Agent;
    // 200 KB of Cyrillic, well under the document's limit; escaped as \uXXXX the body is 600 KB.
    const document = `## Goal\n${"перенос ".repeat(12_500)}\n`;
    expect(Buffer.byteLength(document)).toBeLessThan(256 * 1024);
    const asciiJson = JSON.stringify({ reason: "shift_end", document }).replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
    expect(Buffer.byteLength(asciiJson)).toBeGreaterThan(512 * 1024);
    const handed = await handoffRoute(send("POST", `${base}/${agent.id}/handoff`, asciiJson), context(agent.id));
    expect(handed.status).toBe(201);
    expect(await (await documentRoute(send("GET", `${base}/${agent.id}/document`), context(agent.id))).text()).toBe(document);

    const other = (await (await registerRoute(send("POST", base, { personaSlug: "escaped-dev" }))).json()) as Agent;
    const tooLong = await handoffRoute(send("POST", `${base}/${other.id}/handoff`, { reason: "shift_end", document: `## Goal\n${"x".repeat(300 * 1024)}\n` }), context(other.id));
    expect(tooLong.status).toBe(400);
    expect((await tooLong.json()).error.fieldErrors.document).toEqual(["document must be at most 256 KiB of UTF-8"]);
  });

  it("answers bad input with 400 and field errors, unknown agents with 404", async () => {
    const bad = await registerRoute(send("POST", base, { personaSlug: "../etc", tmuxTarget: "x; rm -rf /" }));
    expect(bad.status).toBe(400);
    const body = await bad.json();
    expect(Object.keys(body.error.fieldErrors).sort()).toEqual(["personaSlug", "tmuxTarget"]);
    expect((await registerRoute(send("POST", base, "{not json"))).status).toBe(400);
    expect((await getRoute(send("GET", `${base}/deadbeef`), context("deadbeef"))).status).toBe(404);
    expect((await getRoute(send("GET", `${base}/..%2F`), context("../"))).status).toBe(400);
    expect((await listRoute(send("GET", `${base}?status=sleeping`))).status).toBe(400);
  });
});
