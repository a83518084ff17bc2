import { createHmac } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { expect, test } from "@playwright/test";
import { connectStdioClient } from "../tests/support/mcp-clients";

let code: Client;
test.beforeAll(async () => {
  // A separate OS process writing the served dashboard's database, as Claude Code does.
  code = (await connectStdioClient({ args: ["--as", "code"] })).client;
});
test.afterAll(async () => {
  await code?.close();
});

type Recorded = { title: string; body: string | undefined };
declare global {
  interface Window {
    recordedNotifications: Recorded[];
  }
}

test("opting in asks for permission on click, then a question from code notifies chat; other entries do not", async ({ page, context, request, baseURL }) => {
  await context.grantPermissions(["notifications"], { origin: baseURL });
  await page.addInitScript(() => {
    window.recordedNotifications = [];
    const Original = window.Notification;
    // Records every notification the page shows, then shows it as the browser would.
    class RecordingNotification extends Original {
      constructor(title: string, options?: NotificationOptions) {
        window.recordedNotifications.push({ title, body: options?.body });
        super(title, options);
      }
    }
    window.Notification = RecordingNotification;
  });
  await page.goto("/");
  const toggle = page.getByTestId("notifications-toggle");
  await expect(toggle).toHaveText("Notify me");
  await toggle.click();
  await expect(toggle).toHaveText("Notifications on");
  await expect(toggle).toHaveAttribute("aria-pressed", "true");

  const created = await request.post(`${baseURL}/api/handoffs`, { data: { title: "E2E: notify chat", content: "context from chat" } });
  expect(created.status()).toBe(201);
  const id = (await created.json()).handoff.id as string;
  // Give the watcher's stream a moment to open past the handoff's creation.
  await page.waitForTimeout(500);
  const progress = await code.callTool({ name: "add_to_handoff", arguments: { id, type: "progress", content: "Halfway there" } });
  expect(progress.isError, JSON.stringify(progress.content)).toBeFalsy();
  const question = await code.callTool({ name: "add_to_handoff", arguments: { id, type: "question", content: "Postgres or SQLite for the cache?" } });
  expect(question.isError, JSON.stringify(question.content)).toBeFalsy();

  await expect.poll(() => page.evaluate(() => window.recordedNotifications), { timeout: 5_000 }).toEqual([
    { title: "Question for chat: E2E: notify chat", body: "Postgres or SQLite for the cache?" },
  ]);

  // The choice survives a reload without asking again; turning it off stops notifications.
  await page.reload();
  await expect(toggle).toHaveText("Notifications on");
  await toggle.click();
  await expect(toggle).toHaveText("Notify me");
});

test("a webhook added in the dashboard receives a signed delivery from the server, shown with its status; Redeliver sends it again", async ({ page, request, baseURL }) => {
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const receiver = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/baton`;
  try {
    await page.goto("/settings/webhooks");
    await page.getByLabel("URL").fill(hookUrl);
    await page.getByRole("button", { name: "Add webhook" }).click();
    await expect(page.getByText(/^events must name at least one of entry\.created, /)).toBeVisible();
    await page.getByLabel(/^question\.asked/).check();
    await page.getByRole("button", { name: "Add webhook" }).click();
    const secret = (await page.getByTestId("webhook-secret").textContent())!;
    expect(secret).toMatch(/^whsec_/);
    const hook = page.getByTestId("webhook").filter({ hasText: hookUrl });
    await expect(hook.getByText("active")).toBeVisible();

    const created = await request.post(`${baseURL}/api/handoffs`, { data: { title: "E2E: hooked", content: "context" } });
    const id = (await created.json()).handoff.id as string;
    const asked = await code.callTool({ name: "add_to_handoff", arguments: { id, type: "question", content: "Ship it today?" } });
    expect(asked.isError).toBeFalsy();
    await expect.poll(() => received.length, { timeout: 5_000 }).toBe(1);
    const [delivery] = received;
    expect(delivery.headers["x-baton-event"]).toBe("question.asked");
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(delivery.headers["x-baton-signature"])) ?? [];
    expect(createHmac("sha256", secret).update(`${t}.${delivery.body}`).digest("hex")).toBe(v1);
    expect(JSON.parse(delivery.body)).toMatchObject({ event: "question.asked", data: { handoff: { id }, entry: { content: "Ship it today?", from: "code" }, waitingFor: "chat" } });

    await page.reload();
    const row = hook.getByTestId("webhook-delivery").first();
    await expect(row.getByText("delivered")).toBeVisible();
    await expect(row.getByText(/^204/)).toBeVisible();
    await row.getByRole("button", { name: /Redeliver/ }).click();
    await expect.poll(() => received.length, { timeout: 5_000 }).toBe(2);
    expect(received[1].body).toBe(delivery.body);

    await hook.getByRole("button", { name: /^Pause/ }).click();
    await expect(hook.getByText("paused")).toBeVisible();
    await hook.getByRole("button", { name: /^Delete/ }).click();
    await page.getByRole("dialog", { name: "Delete this webhook?" }).getByRole("button", { name: "Delete webhook" }).click();
    await expect(page.getByTestId("webhook").filter({ hasText: hookUrl })).toHaveCount(0);
  } finally {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
});
