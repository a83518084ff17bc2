import { expect, test, type Page } from "@playwright/test";
import { waitForHydration } from "./hydration";
import { whenHydrated } from "./support/extra-server";

/**
 * Baton upgraded or rebuilt while a tab was open: the page's buttons and forms name server
 * actions the new build does not have, and Next answers them 409. The composer said "Not sent:
 * the server did not answer" with a Retry that could never work, and Create token or Mark read
 * replaced the page with "Could not load …: Server Action "60a6…" was not found on the server.
 * Read more: https://nextjs.org/docs/messages/failed-to-find-server-action" and a Try again that
 * sent the same action. Here the real server is sent the ID a previous build's page would hold
 * (this build's, changed), which is all such a page differs by.
 */
async function asPageOfPreviousBuild(page: Page): Promise<void> {
  await page.route("**/*", async (route) => {
    const action = route.request().headers()["next-action"];
    if (!action) return route.continue();
    await route.continue({ headers: { ...route.request().headers(), "next-action": `${action.slice(0, 2)}${"f".repeat(action.length - 2)}` } });
  });
}

const UPDATED = "Baton was updated after this page was loaded";

test("a reply posted from a page older than the server says to reload, keeps the text and stores nothing", async ({ page, request }) => {
  const created = await request.post("/api/handoffs", { data: { title: "E2E updated server: composer", content: "start", asClient: "chat" } });
  expect(created.status()).toBe(201);
  const { handoff } = (await created.json()) as { handoff: { id: string } };
  await page.goto(`/handoffs/${handoff.id}`);
  await waitForHydration(page);
  await asPageOfPreviousBuild(page);

  const reply = page.getByRole("textbox", { name: "Content" });
  await reply.fill("written before the upgrade");
  await page.getByRole("button", { name: "Post entry" }).click();
  await expect(page.getByText(`Not sent: ${UPDATED}. Reload the page and send again`)).toBeVisible();
  await expect(reply).toHaveValue("written before the upgrade");
  await expect(page.getByRole("button", { name: "Retry" })).toHaveCount(0);
  const thread = (await (await request.get(`/api/handoffs/${handoff.id}`)).json()) as { entries: unknown[] };
  expect(thread.entries).toHaveLength(1);

  // Reloaded, the page is this build's: the draft is still there and posts.
  await page.unrouteAll();
  await page.reload();
  await expect(reply).toHaveValue("written before the upgrade");
  await page.getByRole("button", { name: "Post entry" }).click();
  await expect(page.locator("li[data-seq]").filter({ hasText: "written before the upgrade" })).toBeVisible();
});

test("Create token and Mark read from a page older than the server say to reload, with a Reload button", async ({ page, request }) => {
  await page.goto("/settings/tokens");
  const create = await whenHydrated(page.getByRole("button", { name: "Create token" }));
  await asPageOfPreviousBuild(page);
  await page.getByRole("textbox", { name: "Name" }).fill("e2e-updated-server");
  await create.click();
  const alert = page.getByRole("alert").filter({ hasText: UPDATED });
  await expect(alert).toContainText("Nothing was done");
  await expect(page.getByText("failed-to-find-server-action")).toHaveCount(0);
  const tokens = await (await request.get("/settings/tokens")).text();
  expect(tokens).not.toContain("e2e-updated-server");
  await page.unrouteAll();
  await alert.getByRole("button", { name: "Reload" }).click();
  await expect(page.getByRole("button", { name: "Create token" })).toBeVisible();

  const created = await request.post("/api/handoffs", { data: { title: "E2E updated server: mark read", content: "start", asClient: "code" } });
  const { handoff } = (await created.json()) as { handoff: { id: string } };
  await page.goto(`/handoffs/${handoff.id}`);
  await waitForHydration(page);
  await asPageOfPreviousBuild(page);
  await page.getByRole("button", { name: "Mark read as chat" }).click();
  await expect(page.getByRole("alert").filter({ hasText: UPDATED })).toBeVisible();
});
