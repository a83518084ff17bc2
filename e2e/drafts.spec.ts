import fs from "node:fs";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { prepareDataDir, startAndWait, stopAndWait, whenHydrated, type ExtraServer } from "./support/extra-server";

/**
 * Nothing typed is lost (issue 28, point 1, acceptance 1): drafts of a reply and of a new handoff
 * survive navigation and reloads and are cleared once sent; a post the server never answers
 * (a 503 before the action runs, or the server stopped) keeps its text with Retry, and Retry
 * posts it once when the server is back.
 */
const basePort = Number(process.env.BATON_E2E_PORT || 3100);
const SIZES = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

async function newThread(request: APIRequestContext, origin = ""): Promise<string> {
  const created = await request.post(`${origin}/api/handoffs`, { data: { title: "E2E drafts", content: "start" } });
  expect(created.status()).toBe(201);
  return ((await created.json()) as { handoff: { id: string } }).handoff.id;
}

async function entryCount(request: APIRequestContext, id: string, origin = ""): Promise<number> {
  return ((await (await request.get(`${origin}/api/handoffs/${id}`)).json()) as { entries: unknown[] }).entries.length;
}

const reply = (page: Page) => page.getByRole("textbox", { name: "Content" });

for (const size of SIZES) {
  for (const colorScheme of ["light", "dark"] as const) {
    test(`drafts survive navigation and a reload and are cleared once sent (${size.width} px, ${colorScheme})`, async ({ page, request }) => {
      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme });
      const id = await newThread(request);
      await page.goto(`/handoffs/${id}`);
      await (await whenHydrated(reply(page))).fill("a reply I was still writing");
      await page.goto("/");
      await page.goto(`/handoffs/${id}`);
      await expect(reply(page)).toHaveValue("a reply I was still writing");
      await page.reload();
      await expect(reply(page)).toHaveValue("a reply I was still writing");
      await (await whenHydrated(page.getByRole("button", { name: "Post entry" }))).click();
      await expect(page.locator("li[data-seq]")).toHaveCount(2);
      await expect(reply(page)).toHaveValue("");
      await page.reload();
      await expect(reply(page)).toHaveValue("");

      await page.goto("/handoffs/new");
      await (await whenHydrated(page.getByLabel("Title"))).fill("E2E drafts: a new handoff");
      await page.getByLabel("First context").fill("context typed before a reload");
      await page.reload();
      await expect(page.getByLabel("Title")).toHaveValue("E2E drafts: a new handoff");
      await expect(page.getByLabel("First context")).toHaveValue("context typed before a reload");
      await (await whenHydrated(page.getByRole("button", { name: "Create handoff" }))).click();
      await expect(page).toHaveURL(/\/handoffs\/hof_[A-Za-z0-9_-]{21}/);
      await expect(page.getByText("Handoff created.")).toBeVisible();
      await page.goto("/handoffs/new");
      await expect(page.getByLabel("Title")).toHaveValue("");
      await expect(page.getByLabel("First context")).toHaveValue("");
    });

    test(`a post answered 503 keeps its text with Retry, which posts it once (${size.width} px, ${colorScheme})`, async ({ page, request }) => {
      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme });
      const id = await newThread(request);
      await page.goto(`/handoffs/${id}`);
      await (await whenHydrated(reply(page))).fill("sent while the server was away");
      // The server's answer replaced by a 503 before any action runs (a proxy with no upstream).
      await page.route(`**/handoffs/${id}**`, (route) =>
        route.request().method() === "POST" ? route.fulfill({ status: 503, contentType: "text/plain", body: "Service Unavailable" }) : route.fallback(),
      );
      await page.getByRole("button", { name: "Post entry" }).click();
      await expect(page.getByTestId("not-sent")).toContainText("Not sent");
      await expect(reply(page)).toHaveValue("sent while the server was away");
      await expect(page.getByText("Could not load this handoff")).toHaveCount(0);
      expect(await entryCount(request, id)).toBe(1);
      await page.unroute(`**/handoffs/${id}**`);
      await page.getByRole("button", { name: "Retry" }).click();
      await expect(page.locator("li[data-seq]")).toHaveCount(2);
      await expect(reply(page)).toHaveValue("");
      expect(await entryCount(request, id)).toBe(2);
    });
  }
}

test.describe("the server stopped while posting", () => {
  const port = basePort + 75;
  const origin = `http://127.0.0.1:${port}`;
  let server: ExtraServer | undefined;
  let dataDir: string;

  const start = async () => {
    server = await startAndWait({ dataDir, port }, async () => (await fetch(`${origin}/api/health`)).ok, "the drafts server");
  };
  test.beforeAll(async () => {
    dataDir = prepareDataDir().dataDir;
    await start();
  });
  test.afterAll(async () => {
    if (server) await stopAndWait(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test("the text stays with Retry, no error page; back up, Retry posts it once", async ({ page, request }) => {
    const id = await newThread(request, origin);
    await page.goto(`${origin}/handoffs/${id}`);
    await (await whenHydrated(reply(page))).fill("written as the server went down");
    await stopAndWait(server!);
    await page.getByRole("button", { name: "Post entry" }).click();
    await expect(page.getByTestId("not-sent")).toContainText("Not sent");
    await expect(reply(page)).toHaveValue("written as the server went down");
    await expect(page.getByText("Could not load this handoff")).toHaveCount(0);
    await start();
    await page.getByRole("button", { name: "Retry" }).click();
    await expect(page.locator("li[data-seq]")).toHaveCount(2);
    await expect(reply(page)).toHaveValue("");
    expect(await entryCount(request, id, origin)).toBe(2);
  });
});
