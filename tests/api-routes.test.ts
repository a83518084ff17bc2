import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changeFeedStats } from "../lib/changes";
import { guardPolicy } from "../lib/guard";
import { createHandoff, getHandoff } from "../lib/handoffs";
import { createGuardedServer } from "../lib/server";
import { apiRoutes, matchApiRoute, serveApiRoute } from "../lib/server/api-routes";

/**
 * Baton's server hands admitted /api requests straight to their route handlers
 * (lib/server/api-routes.ts); these check the route table read from app/api and the dispatch,
 * behind the real guard, as `npm start` runs it.
 */
const projectRoot = path.resolve(import.meta.dirname, "..");
const routes = apiRoutes(projectRoot);

describe("the route table read from app/api", () => {
  it("holds the API's routes with their parameters, and leaves /api/health to Next", () => {
    const patterns = routes.map((route) => route.pattern);
    expect(patterns).toEqual(expect.arrayContaining(["/api/handoffs", "/api/handoffs/[id]", "/api/handoffs/[id]/entries", "/api/mcp", "/api/events"]));
    expect(patterns).not.toContain("/api/health");
    expect(matchApiRoute(routes, "/api/health")).toBeNull();
  });

  it("matches fixed segments before parameters, decodes parameters and ignores a trailing slash", () => {
    expect(matchApiRoute(routes, "/api/handoffs")?.route.pattern).toBe("/api/handoffs");
    expect(matchApiRoute(routes, "/api/handoffs/hof_abc/entries/")).toMatchObject({ route: { pattern: "/api/handoffs/[id]/entries" }, params: { id: "hof_abc" } });
    expect(matchApiRoute(routes, "/api/handoffs/hof%5Fabc")?.params).toEqual({ id: "hof_abc" });
    expect(matchApiRoute(routes, "/api/handoffs//entries")).toBeNull();
    expect(matchApiRoute(routes, "/api/nothing/here")).toBeNull();
    expect(matchApiRoute(routes, "/handoffs/hof_abc")).toBeNull();
  });
});

describe("a request handed to its route handler", () => {
  let origin = "";
  let server: http.Server;
  beforeAll(async () => {
    server = createGuardedServer(guardPolicy({}), async (request, response) => {
      const match = matchApiRoute(routes, (request.url ?? "/").split("?")[0]);
      if (match) return serveApiRoute(match, request, response);
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("appends through REST with the handler's status and body", async () => {
    const { handoff } = await createHandoff({ title: "direct", content: "first" });
    const answer = await fetch(`${origin}/api/handoffs/${handoff.id}/entries`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ type: "progress", content: "straight to the handler", asClient: "code" }),
    });
    expect(answer.status).toBe(201);
    expect(((await answer.json()) as { entry: { content: string } }).entry.content).toBe("straight to the handler");
    expect((await getHandoff({ id: handoff.id })).entries.map((entry) => entry.content)).toEqual(["first", "straight to the handler"]);
  });

  it("answers HEAD like GET without a body, OPTIONS with the methods, and 405 for another method", async () => {
    const { handoff } = await createHandoff({ title: "methods", content: "first" });
    const head = await fetch(`${origin}/api/handoffs/${handoff.id}`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const options = await fetch(`${origin}/api/handoffs/${handoff.id}/entries`, { method: "OPTIONS" });
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toContain("POST");
    const put = await fetch(`${origin}/api/handoffs/${handoff.id}/entries`, { method: "PUT", headers: { "content-type": "application/json" }, body: "{}" });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toContain("POST");
    expect(((await put.json()) as { error: { message: string } }).error.message).toMatch(/answers .*POST/);
  });

  it("keeps a keep-alive connection usable after a handler that left a 120 KB body unread", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const send = (method: string, path: string, body?: string) =>
      new Promise<number>((resolve, reject) => {
        const headers = body === undefined ? {} : { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) };
        const request = http.request(`${origin}${path}`, { method, agent, headers }, (response) => {
          response.resume();
          response.on("end", () => resolve(response.statusCode ?? 0));
        });
        request.on("error", reject);
        request.end(body);
      });
    const unread = JSON.stringify({ filler: "a".repeat(120_000) });
    try {
      expect(await send("PUT", "/api/handoffs/hof_x/entries", unread)).toBe(405);
      expect(await send("POST", "/api/agents/999999/end", unread)).toBe(404);
      expect(await send("GET", "/api/handoffs")).toBe(200);
    } finally {
      agent.destroy();
    }
  });

  it("streams server-sent events and ends the subscription when the client goes away", async () => {
    const before = changeFeedStats().subscribers;
    const aborted = new AbortController();
    const answer = await fetch(`${origin}/api/events`, { signal: aborted.signal });
    expect(answer.headers.get("content-type")).toMatch(/text\/event-stream/);
    const reader = answer.body!.getReader();
    const { handoff } = await createHandoff({ title: "seen live", content: "first" });
    let seen = "";
    while (!seen.includes(handoff.id)) seen += new TextDecoder().decode((await reader.read()).value);
    expect(changeFeedStats().subscribers).toBe(before + 1);
    aborted.abort();
    for (let tries = 0; tries < 100 && changeFeedStats().subscribers > before; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(changeFeedStats().subscribers).toBe(before);
  });
});
