import { expect, test } from "@playwright/test";
import { rawRequest } from "../tests/support/raw-http";

/**
 * Answers that depend on who asks carry `Cache-Control: no-store`, so neither a shared proxy in
 * front nor the browser's disk cache keeps a thread's content (RFC 9111 §5.2.2.5). The REST
 * list, a thread and the agents carried no Cache-Control at all: a cache may store such an answer
 * and a proxy hand it to the next caller of the URL. Over the socket of the server `npm start`
 * runs; Next's static assets stay cacheable for a year, as they are.
 */
const base = process.env.BATON_E2E_BASE_URL!;
const host = new URL(base).host;
const get = (path: string, headers: Record<string, string> = {}) => rawRequest(base, "GET", path, { host, ...headers });

test("the API's answers are no-store (list, thread, agents, MCP's GET, the token endpoint, an error); a static asset is not", async () => {
  const created = await rawRequest(base, "POST", "/api/handoffs", { host, "content-type": "application/json" }, JSON.stringify({ title: "Cached?", content: "a thread's content" }));
  expect(created.status).toBe(201);
  expect(created.headers["cache-control"]).toBe("no-store");
  const id = (JSON.parse(created.body) as { handoff: { id: string } }).handoff.id;

  const answers = {
    list: await get("/api/handoffs"),
    thread: await get(`/api/handoffs/${id}?as=code`),
    agents: await get("/api/agents"),
    missing: await get("/api/handoffs/no-such-thread"),
    mcpStream: await get("/api/mcp", { accept: "text/event-stream" }),
    token: await rawRequest(base, "POST", "/oauth/token", { host, "content-type": "application/x-www-form-urlencoded" }, "grant_type=authorization_code"),
  };
  expect(answers.thread.body).toContain("a thread's content");
  for (const [name, answer] of Object.entries(answers)) expect(answer.headers["cache-control"], `${name} (${answer.status})`).toBe("no-store");

  const desk = await get("/");
  const script = /\/_next\/static\/[^"']+\.js/.exec(desk.body)?.[0];
  expect(script).toBeDefined();
  const asset = await get(script!);
  expect(asset.status).toBe(200);
  expect(asset.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
});
