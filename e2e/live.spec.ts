import { execFileSync } from "node:child_process";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { expect, test, type Page } from "@playwright/test";
import { connectStdioClient } from "../tests/support/mcp-clients";
import { prepareDataDir, startExtraServer, waitUntil, type ExtraServer } from "./support/extra-server";

// The page's fallback polls every 5 s (components/live/use-live-changes.ts, FALLBACK_POLL_MS).
const FALLBACK_POLL_MS = 5_000;
const root = path.resolve(import.meta.dirname, "..");

let code: Client;
test.beforeAll(async () => {
  // A separate OS process writing the served dashboard's database (playwright.config.ts put its data folder in this environment).
  code = (await connectStdioClient({ args: ["--as", "code"] })).client;
});
test.afterAll(async () => {
  await code?.close();
});

const liveStatus = (page: Page) => page.getByTestId("live-status");

/** Every request a page makes for data (the REST API), as URLs. */
function dataRequests(page: Page): string[] {
  const urls: string[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).pathname.startsWith("/api/handoffs")) urls.push(request.url());
  });
  return urls;
}

async function createThread(request: import("@playwright/test").APIRequestContext, baseURL: string, title: string): Promise<string> {
  const created = await request.post(`${baseURL}/api/handoffs`, { data: { title, content: "context from chat", project: "e2e" } });
  expect(created.status()).toBe(201);
  return (await created.json()).handoff.id as string;
}

test("an entry written by a separate MCP stdio process is pushed to an open thread page and the history's unread badge; idle pages request nothing", async ({ page, context, request, baseURL }) => {
  const id = await createThread(request, baseURL!, "E2E: pushed, not polled");
  const history = await context.newPage();
  const threadRequests = dataRequests(page);
  const historyRequests = dataRequests(history);
  await page.goto(`/handoffs/${id}`);
  await history.goto("/");
  await expect(liveStatus(page)).toHaveAttribute("data-live-path", "stream");
  await expect(liveStatus(history)).toHaveAttribute("data-live-path", "stream");
  const row = history.locator(`li[data-handoff-id="${id}"]`);
  await expect(row).toBeVisible();
  await expect(row.getByText(/^Chat: /)).toHaveCount(0);

  // Longer than a fallback poll: a page kept current by polling would have asked for data by now.
  threadRequests.length = 0;
  historyRequests.length = 0;
  await page.waitForTimeout(FALLBACK_POLL_MS + 1_000);
  expect(threadRequests).toEqual([]);
  expect(historyRequests).toEqual([]);
  const seqBefore = Number(await liveStatus(page).getAttribute("data-live-seq"));

  const result = await code.callTool({ name: "add_to_handoff", arguments: { id, type: "question", content: "Pushed from stdio: 7d or 30d?" } });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  await expect(page.getByText("Pushed from stdio: 7d or 30d?")).toBeVisible({ timeout: 2_000 });
  await expect(row.getByText("Chat: 1 unread")).toBeVisible({ timeout: 2_000 });
  // Delivered by the stream: the page saw a newer change seq, is still on the stream, and fetched only what is new.
  expect(Number(await liveStatus(page).getAttribute("data-live-seq"))).toBeGreaterThan(seqBefore);
  await expect(liveStatus(page)).toHaveAttribute("data-live-path", "stream");
  expect(threadRequests.length).toBeGreaterThan(0);
  for (const url of threadRequests) expect(url).toMatch(/after_seq=\d+/);
  await history.close();
});

test("when the stream cannot be opened, the page falls back to polling and still shows new entries", async ({ page, request, baseURL }) => {
  const id = await createThread(request, baseURL!, "E2E: fallback polling");
  await page.route("**/api/events**", (route) => route.abort());
  await page.goto(`/handoffs/${id}`);
  await expect(liveStatus(page)).toHaveAttribute("data-live-path", "polling");
  await expect(liveStatus(page)).toContainText("checking every 5 s");
  const result = await code.callTool({ name: "add_to_handoff", arguments: { id, type: "progress", content: "Seen by polling" } });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  await expect(page.getByText("Seen by polling")).toBeVisible({ timeout: FALLBACK_POLL_MS + 3_000 });
});

test("after the server restarts, an open page reconnects and catches up on what was written while it was down, without a reload", async ({ page, request }) => {
  test.setTimeout(180_000);
  const port = Number(process.env.BATON_E2E_PORT || 3100) + 17;
  const { dataDir } = prepareDataDir();
  const origin = `http://127.0.0.1:${port}`;
  const up = () => waitUntil(async () => (await fetch(`${origin}/api/handoffs`)).ok, `the server on ${port}`);
  let server: ExtraServer = startExtraServer({ dataDir, port });
  try {
    await up();
    const id = await createThread(request, origin, "E2E: restart");
    await page.goto(`${origin}/handoffs/${id}`);
    await expect(liveStatus(page)).toHaveAttribute("data-live-path", "stream");
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));

    server.stop();
    await server.exited;
    await expect(liveStatus(page)).toHaveAttribute("data-live-path", "reconnecting");
    // Written through the domain by another process while no server runs.
    const env = { ...process.env, BATON_DATA_DIR: dataDir, DATABASE_URL: `file:${path.join(dataDir, "baton.db")}` };
    const out = execFileSync(process.execPath, ["--import", "tsx", "tests/support/append-worker.ts", id, id, "1", "code"], { cwd: root, env, encoding: "utf8" });
    expect(out.trim()).toMatch(/^ok \[\d+\]$/);
    await expect(page.getByText("code 0")).toHaveCount(0);

    server = startExtraServer({ dataDir, port });
    await up();
    await expect(page.getByText("code 0", { exact: true })).toBeVisible({ timeout: 15_000 });
    await expect(liveStatus(page)).toHaveAttribute("data-live-path", "stream");
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  } finally {
    server.stop();
    await server.exited;
  }
});
