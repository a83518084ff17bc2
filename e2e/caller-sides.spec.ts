import fs from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { prepareDataDir, signInWith, startAndWait, stopAndWait, type ExtraServer } from "./support/extra-server";

/**
 * The server-action door of the default side (issue 30, acceptance 3): a desk form that names no
 * side counts as the side REST gives the same caller (tests/caller-rules.test.ts shows REST, MCP
 * over HTTP and stdio agree for every caller kind). Pages and their actions are the operator's,
 * so the callers here are the desk (this machine, no sign-in) and a signed-in session; agents and
 * connectors are refused at pages (e2e/access.spec.ts).
 */
const basePort = Number(process.env.BATON_E2E_PORT || 3100);

type Thread = { entries: { fromClient: string }[] };

/** REST from the page itself (its cookies and origin): a new handoff's first entry, no side named. */
async function restSide(page: Page): Promise<string> {
  const created = await page.evaluate(async () => {
    const response = await fetch("/api/handoffs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "side over REST", content: "which side?" }) });
    return { status: response.status, body: (await response.json()) as Thread };
  });
  expect(created.status).toBe(201);
  return created.body.entries[0].fromClient;
}

/** The desk's radios keep their place for React but leave the form, so the action hears no side. */
async function nameNoSide(page: Page): Promise<void> {
  await page.locator('input[name="asClient"]').evaluateAll((inputs) => inputs.forEach((input) => input.setAttribute("name", "sideLeftOut")));
}

/** The new-handoff form and the thread's composer, each submitted without a side: what was checked and what was stored. */
async function formSides(page: Page, origin: string): Promise<{ checked: string; created: string; replied: string }> {
  await page.goto(`${origin}/handoffs/new`);
  const checked = await page.locator('input[name="asClient"]:checked').inputValue();
  await page.getByLabel("Title").fill("side through the desk");
  await page.getByLabel("First context").fill("no side named");
  await nameNoSide(page);
  await page.getByRole("button", { name: "Create handoff" }).click();
  await expect(page).toHaveURL(/\/handoffs\/hof_[A-Za-z0-9_-]{21}/);
  const id = (await page.getByTestId("handoff-id").textContent())!.trim();
  await page.goto(`${origin}/handoffs/${id}`);
  await page.getByRole("textbox", { name: "Content" }).fill("a reply naming no side");
  await nameNoSide(page);
  await page.getByRole("button", { name: "Post entry" }).click();
  await expect(page.locator("li[data-seq]")).toHaveCount(2);
  const thread = await page.evaluate(async (handoff) => (await (await fetch(`/api/handoffs/${handoff}`)).json()) as Thread, id);
  return { checked, created: thread.entries[0].fromClient, replied: thread.entries[1].fromClient };
}

test("the desk: its forms that name no side count as REST's side for it", async ({ page, baseURL }) => {
  await page.goto("/");
  const side = await restSide(page);
  expect(await formSides(page, baseURL!)).toEqual({ checked: side, created: side, replied: side });
});

test.describe("a signed-in session", () => {
  const port = basePort + 74;
  const origin = `http://127.0.0.1:${port}`;
  let server: ExtraServer;
  let token: string;

  test.beforeAll(async () => {
    const prepared = prepareDataDir([{ name: "desk", role: "operator" }]);
    token = prepared.tokens.desk;
    server = await startAndWait({ dataDir: prepared.dataDir, port, env: { BATON_AUTH: "required" } }, async () => (await fetch(`${origin}/sign-in`)).status === 200, "the BATON_AUTH=required server");
  });
  test.afterAll(async () => {
    if (!server) return;
    await stopAndWait(server);
    fs.rmSync(server.dataDir, { recursive: true, force: true });
  });

  test("its forms that name no side count as REST's side for it", async ({ page }) => {
    await page.goto(`${origin}/sign-in`);
    await signInWith(page, token);
    await expect(page).toHaveURL(`${origin}/`);
    const side = await restSide(page);
    expect(await formSides(page, origin)).toEqual({ checked: side, created: side, replied: side });
  });
});
