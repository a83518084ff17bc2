import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { expect, test } from "@playwright/test";
import { connectHttpClient, connectStdioClient } from "../tests/support/mcp-clients";

// The stdio server opens the database of the served dashboard: playwright.config.ts puts its
// BATON_DATA_DIR / DATABASE_URL in this process's environment, which the server inherits.
let code: Client;
let chat: Client;

test.beforeAll(async () => {
  code = (await connectStdioClient({ args: ["--as", "code"] })).client;
  chat = await connectHttpClient(`${process.env.BATON_E2E_BASE_URL}/api/mcp`);
});

test.afterAll(async () => {
  await code?.close();
  await chat?.close();
});

async function tool<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result.structuredContent as T;
}

test("entries written over MCP (stdio and the dashboard's own /api/mcp) appear on an open thread page within 2 s", async ({ page }) => {
  const { handoff } = await tool<{ handoff: { id: string } }>(chat, "create_handoff", {
    title: "E2E: MCP live",
    content: "Chat's context, sent over HTTP",
    project: "e2e",
  });
  await page.goto(`/handoffs/${handoff.id}`);
  await expect(page.getByRole("heading", { name: "E2E: MCP live" })).toBeVisible();
  await expect(page.locator("li[data-seq]")).toHaveCount(1);
  await expect(page.getByTestId("live-status")).toHaveAttribute("data-live-path", "stream");

  await tool(code, "add_to_handoff", { id: handoff.id, type: "question", content: "Code asks over stdio: 7d or 30d?" });
  await expect(page.getByText("Code asks over stdio: 7d or 30d?")).toBeVisible({ timeout: 2_000 });
  await expect(page.locator("li[data-seq]")).toHaveCount(2);
  await expect(page.locator("li[data-seq]").last()).toContainText("code");

  await tool(chat, "add_to_handoff", { id: handoff.id, type: "decision", content: "Chat decides over HTTP: 30 days" });
  await expect(page.getByText("Chat decides over HTTP: 30 days")).toBeVisible({ timeout: 2_000 });
  await expect(page.locator("li[data-seq]")).toHaveCount(3);

  await tool(code, "close_handoff", { id: handoff.id });
  await expect(page.locator("li[data-seq]")).toHaveCount(0, { timeout: 2_000 });
  await expect(page.getByText("Completed").first()).toBeVisible({ timeout: 2_000 });
});

test("the served /api/mcp refuses a foreign Origin and a rebinding Host, and answers GET with 405", async ({ request, baseURL }) => {
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "e2e", version: "1" } },
  };
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const foreign = await request.post(`${baseURL}/api/mcp`, { data: initialize, headers: { ...headers, origin: "https://evil.example" } });
  expect(foreign.status()).toBe(403);
  expect((await foreign.json()).error.message).toMatch(/^Origin "https:\/\/evil\.example" may not change anything in Baton/);
  const rebound = await request.post(`${baseURL}/api/mcp`, { data: initialize, headers: { ...headers, host: "rebind.example:3300" } });
  expect(rebound.status()).toBe(403);
  const ok = await request.post(`${baseURL}/api/mcp`, { data: initialize, headers });
  expect(ok.status()).toBe(200);
  expect((await ok.json()).result.serverInfo.name).toBe("baton");
  expect((await request.get(`${baseURL}/api/mcp`)).status()).toBe(405);
});

test("a resource subscription over the served /api/mcp gets notifications/resources/updated within 1 s of a write by a stdio process", async () => {
  const { handoff } = await tool<{ handoff: { id: string } }>(chat, "create_handoff", { title: "E2E: subscribed over HTTP", content: "watch me" });
  const uri = `baton://handoffs/${handoff.id}`;
  const updates: number[] = [];
  chat.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    if (notification.params.uri === uri) updates.push(Date.now());
  });
  await chat.subscribeResource({ uri });
  await tool(code, "add_to_handoff", { id: handoff.id, type: "progress", content: "written over stdio" });
  const wroteAt = Date.now();
  await expect.poll(() => updates.length, { timeout: 1_000, intervals: [20] }).toBeGreaterThan(0);
  expect(updates[0] - wroteAt).toBeLessThanOrEqual(1_000);
  await chat.unsubscribeResource({ uri });
});
