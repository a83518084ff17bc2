import fs from "node:fs";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { addEntry, createThread, longThread } from "../scripts/desk-demo";
import { waitForHydration } from "./hydration";
import { axeViolations } from "./support/axe";
import { prepareDataDir, startExtraServer, waitUntil, type ExtraServer } from "./support/extra-server";

/** Issue 17, the operator's desk: each point of its acceptance, in Chromium. */
const baseURL = process.env.BATON_E2E_BASE_URL!;
const basePort = Number(process.env.BATON_E2E_PORT || 3100);

/** A tmux target that exists nowhere: the shift prompt typed to it fails, as for a pane that is gone. */
const MISSING_PANE = "baton-e2e-missing:1.0";

type AgentJson = { id: number; shortId: string; handoff: { deliveryState: string | null } | null };

/** Two agents, the first handed off to the second with a tmux target that does not exist; waits until the delivery failed. */
async function failedDelivery(request: APIRequestContext, persona: string): Promise<{ from: AgentJson; to: AgentJson }> {
  const registered = await request.post("/api/agents", { data: { personaSlug: persona, project: "e2e" } });
  expect(registered.status()).toBe(201);
  const from = (await registered.json()) as AgentJson;
  const handedOff = await request.post(`/api/agents/${from.id}/handoff`, {
    data: { reason: "shift_end", document: "## Goal\nKeep the importer streaming.\n", successor: { tmuxTarget: MISSING_PANE } },
  });
  expect(handedOff.status()).toBe(201);
  const to = ((await handedOff.json()) as { successor: AgentJson }).successor;
  await expect
    .poll(async () => ((await (await request.get(`/api/agents/${from.id}`)).json()) as AgentJson).handoff?.deliveryState, { timeout: 20_000 })
    .toBe("failed");
  return { from, to };
}

/** Axe's critical and serious findings on the page as it is, named with where. */
async function seriousViolations(page: Page): Promise<string[]> {
  return (await axeViolations(page))
    .filter((violation) => violation.impact === "critical" || violation.impact === "serious")
    .map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(" ")).slice(0, 3).join(", ")})`);
}

/** Waits until the page is hydrated and kept live (pages with a change stream: the desk, agents, threads). */
async function waitUntilLive(page: Page) {
  await expect(page.getByTestId("live-status")).toHaveAttribute("data-live-path", "stream");
}

const bodyBackground = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);

test("dark mode follows the system, the toggle changes the background and is remembered", async ({ browser }) => {
  const dark = await browser.newContext({ baseURL, colorScheme: "dark" });
  const system = await dark.newPage();
  await system.goto("/");
  await expect(system.locator("html")).toHaveClass(/dark/);
  await dark.close();

  const context = await browser.newContext({ baseURL, colorScheme: "light" });
  const page = await context.newPage();
  await page.goto("/agents");
  await waitUntilLive(page);
  await expect(page.locator("html")).not.toHaveClass(/dark/);
  const light = await bodyBackground(page);
  const toggle = page.getByTestId("theme-toggle");
  await expect(toggle).toHaveAttribute("data-theme-choice", "system");
  await toggle.click();
  await expect(toggle).toHaveAttribute("data-theme-choice", "light");
  await toggle.click();
  await expect(toggle).toHaveAttribute("data-theme-choice", "dark");
  await expect(page.locator("html")).toHaveClass(/dark/);
  const darkBackground = await bodyBackground(page);
  expect(darkBackground).not.toBe(light);
  // Remembered: a reload (and another page) starts dark although the system is light.
  await page.goto("/connect");
  await expect(page.locator("html")).toHaveClass(/dark/);
  expect(await bodyBackground(page)).toBe(darkBackground);
  await context.close();
});

test("leaving the desk right after typing a search stays left: the search's pending address does not pull the page back", async ({ page }) => {
  await page.goto("/");
  await waitUntilLive(page);
  // A server slower than the typing pause: the desk is still shown when the pause ends.
  await page.route(/\/agents(\?|$)/, async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await route.continue();
  });
  await page.locator('input[name="q"]').fill("refunds");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Agents" }).click();
  await expect(page).toHaveURL(/\/agents$/);
  await expect(page.getByRole("heading", { name: "Agents", level: 1 })).toBeVisible();
  // Past the typing pause and the slow answer: still on the agents page.
  await page.waitForTimeout(1_500);
  await expect(page).toHaveURL(/\/agents$/);
});

test("keyboard shortcuts: / focuses search from anywhere, ? lists them, g a, c", async ({ page }) => {
  await page.goto("/agents");
  await waitUntilLive(page);
  await page.keyboard.press("/");
  await expect(page).toHaveURL(/\/$/);
  await expect(page.locator('input[name="q"]')).toBeFocused();
  // Typing in the box is typing, not shortcuts.
  await page.keyboard.type("c");
  await expect(page).toHaveURL(/\/$/);
  await page.locator('input[name="q"]').blur();
  await page.keyboard.press("/");
  await expect(page.locator('input[name="q"]')).toBeFocused();
  await page.locator('input[name="q"]').blur();

  await page.keyboard.press("?");
  const overlay = page.getByRole("dialog", { name: "Keyboard shortcuts" });
  await expect(overlay).toBeVisible();
  await expect(overlay).toContainText("Next entry of a thread");
  await page.keyboard.press("Escape");
  await expect(overlay).toBeHidden();

  await page.keyboard.press("g");
  await page.keyboard.press("a");
  await expect(page).toHaveURL(/\/agents$/);
  await page.keyboard.press("c");
  await expect(page).toHaveURL(/\/handoffs\/new$/);
});

test("Ctrl+Enter posts; the composer previews Markdown; entries are numbered within the thread and j/k move between them", async ({ page, request }) => {
  const id = await createThread(baseURL, "E2E desk: posting by keyboard", "First context.", "e2e");
  await page.goto(`/handoffs/${id}`);
  await waitForHydration(page);
  await expect(page.locator("li[data-seq]").first()).toContainText("#1");
  const box = page.getByRole("textbox", { name: "Content" });
  await box.fill("Ship **today** with\n\n- [x] tests\n- [ ] docs");
  await page.getByRole("button", { name: "Preview" }).click();
  await expect(page.getByTestId("entry-preview").locator("strong")).toHaveText("today");
  await expect(page.getByTestId("entry-preview").getByRole("checkbox", { name: "Done", exact: true })).toBeChecked();
  await page.getByRole("button", { name: "Write" }).click();
  await box.press("Control+Enter");
  await expect(page.locator("li[data-seq]")).toHaveCount(2);
  await expect(page.locator("li[data-seq]").nth(1)).toContainText("#2");
  await expect(page.locator("li[data-seq]").nth(1).locator("strong")).toHaveText("today");
  await expect(box).toHaveValue("");
  // The API keeps the global seq.
  const thread = await (await request.get(`/api/handoffs/${id}`)).json();
  expect(thread.entries.map((entry: { seq: number }) => entry.seq)).toEqual(
    await page.locator("li[data-seq]").evaluateAll((items) => items.map((item) => Number(item.getAttribute("data-seq")))),
  );

  await box.blur();
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.keyboard.press("j");
  await expect(page.locator("li[data-seq]").first()).toBeFocused();
  await page.keyboard.press("j");
  await expect(page.locator("li[data-seq]").nth(1)).toBeFocused();
  await page.keyboard.press("k");
  await expect(page.locator("li[data-seq]").first()).toBeFocused();
});

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  test(`a thread of 80 entries and 2 new ones opens at the first new entry at ${viewport.width} px`, async ({ page }) => {
    const id = await longThread(baseURL, 80, ["First of the two new entries.", "Second new entry: docs next?"], "e2e");
    await page.setViewportSize(viewport);
    await page.goto(`/handoffs/${id}?as=chat`);
    await waitForHydration(page);
    const firstNew = page.locator("li[data-new]").first();
    await expect(firstNew).toContainText("First of the two new entries.");
    await expect(firstNew).toHaveAttribute("data-number", "81");
    await expect(firstNew).toBeInViewport();
    await expect(page.getByTestId("new-count")).toHaveText("2 new for chat");
    // From the top, the jump control brings it back.
    await page.evaluate(() => window.scrollTo(0, 0));
    await expect(firstNew).not.toBeInViewport();
    await page.getByRole("navigation", { name: "Jump in the thread" }).getByRole("link", { name: "2 new" }).click();
    await expect(firstNew).toBeInViewport();
  });
}

test("a failed delivery is flagged on /agents, in the chain, on the successor's page and on the desk", async ({ page, request }) => {
  const { from, to } = await failedDelivery(request, "e2e-failed-delivery");
  await page.goto("/agents?persona=e2e-failed-delivery");
  const chain = page.locator(`li[data-agent-id="${to.id}"]`);
  await expect(chain).toContainText("Prompt did not arrive");
  await expect(chain.locator(`li[data-agent-id="${from.id}"]`)).toContainText("Prompt did not arrive (at its successor)");

  // One status and one error wherever it shows: the successor's page, the predecessor's steps, the desk.
  await page.goto(`/agents/${to.id}`);
  const flag = page.getByTestId("arrival-stalled");
  await expect(flag).toContainText("Prompt did not arrive");
  await expect(flag).toContainText(from.shortId);
  const problem = (await flag.getByTestId("delivery-problem").textContent())!;
  expect(problem).toMatch(/^The prompt did not reach the successor's pane: /);
  await expect(flag.getByRole("button", { name: "Retry delivery" })).toBeVisible();
  // Retry offers the successor's known pane, and takes another.
  await expect(flag.getByLabel("Pane (tmux target)")).toHaveValue(MISSING_PANE);
  const nodes = page.getByRole("list", { name: "Agents in order, oldest first" }).locator("li");
  await expect(nodes.first()).toContainText("Prompt did not arrive (at its successor)");
  await expect(nodes.nth(1)).toContainText("Prompt did not arrive");
  await expect(page).toHaveTitle(new RegExp(`^\\(\\d+\\) .*${to.shortId} · Baton$`));
  await page.goto(`/agents/${from.id}`);
  await expect(page.getByTestId("delivery-stalled").getByTestId("delivery-problem")).toHaveText(problem);
  await expect(page.getByTestId("delivery")).toHaveCount(0);

  await page.goto("/");
  await expect(page.getByTestId("attention-deliveries")).toContainText(from.shortId);
  await expect(page.getByTestId("attention-deliveries").getByTestId("delivery-problem").first()).toHaveText(problem);
  await expect(page.getByTestId("attention-count")).toBeVisible();
  await expect(page).toHaveTitle(/^\(\d+\) Handoffs · Baton$/);
});

test("the desk leads with a question waiting for a side, linking to the thread as that side", async ({ page }) => {
  const id = await createThread(baseURL, "E2E desk: a question for chat", "Context first.", "e2e");
  await addEntry(baseURL, id, "question", "Which database: SQLite or PostgreSQL?", "code");
  await page.goto("/");
  const question = page.getByTestId("attention-thread").filter({ hasText: "E2E desk: a question for chat" });
  await expect(question).toContainText("1 question, 1 new entry for chat");
  await expect(question).toContainText("Which database");
  await question.getByRole("link").click();
  await expect(page).toHaveURL(new RegExp(`/handoffs/${id}\\?as=chat&entry=2#entry-2$`));
  await expect(page).toHaveTitle(/E2E desk: a question for chat · Baton$/);
  await page.getByRole("button", { name: "Mark read as chat" }).click();
  await expect(page.getByTestId("new-count")).toHaveText("Nothing new for chat");
  await page.goto("/");
  await expect(page.getByText("E2E desk: a question for chat")).toHaveCount(1);
});

test("revoking a token and deleting a webhook ask first", async ({ page }) => {
  await page.goto("/settings/tokens");
  await page.getByLabel("Name").fill("e2e-confirm");
  await page.getByRole("button", { name: "Create token" }).click();
  await expect(page.getByTestId("new-token")).toBeVisible();
  await waitForHydration(page);
  await page.getByRole("button", { name: "Revoke e2e-confirm" }).click();
  const dialog = page.getByRole("dialog", { name: "Revoke e2e-confirm?" });
  await expect(dialog).toContainText("stops working on its next request");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("button", { name: "Revoke e2e-confirm" })).toBeVisible();
  await page.getByRole("button", { name: "Revoke e2e-confirm" }).click();
  await dialog.getByRole("button", { name: "Revoke token" }).click();
  await expect(page.getByRole("button", { name: "Revoke e2e-confirm" })).toHaveCount(0);

  const url = "http://127.0.0.1:9/e2e-confirm-hook";
  await page.goto("/settings/webhooks");
  await page.getByLabel("URL").fill(url);
  await page.getByRole("checkbox", { name: /question/ }).first().check();
  await page.getByRole("button", { name: "Add webhook" }).click();
  const hook = page.getByTestId("webhook").filter({ hasText: url });
  await expect(hook).toBeVisible();
  await hook.getByRole("button", { name: `Delete ${url}` }).click();
  const confirm = page.getByRole("dialog", { name: "Delete this webhook?" });
  await expect(confirm).toContainText(url);
  await confirm.getByRole("button", { name: "Delete webhook" }).click();
  await expect(hook).toHaveCount(0);
});

test("a closed thread's kept bundle reads as the thread, not JSON; continuing keeps the project and takes a new title", async ({ page, request }) => {
  const id = await createThread(baseURL, "E2E desk: closing keeps a readable bundle", "We use **SQLite** in WAL mode.", "e2e-kept");
  await addEntry(baseURL, id, "question", "Is one writer at a time enough?", "code");
  await addEntry(baseURL, id, "decision", "Yes: appends hold the lock for microseconds.", "chat");
  await addEntry(baseURL, id, "question", "Do we need a read replica later?", "code");
  const closed = await request.post(`/api/handoffs/${id}/close`, { data: { archive: true } });
  expect(closed.status()).toBe(200);
  const artifactId = (await closed.json()).artifactId as string;

  await page.goto(`/handoffs/${id}`);
  const summary = page.getByTestId("kept-bundle-summary");
  await expect(summary.getByRole("region", { name: "Latest decision" })).toContainText("Yes: appends hold the lock for microseconds.");
  await expect(summary.getByRole("region", { name: "Open questions" })).toContainText("Do we need a read replica later?");
  await expect(summary.locator("strong").first()).toBeVisible();
  const text = (await page.getByTestId("kept-bundle").textContent())!;
  expect(text).not.toContain("summary_markdown");
  expect(text).not.toContain('{"');
  await expect(page.getByTestId("kept-bundle-id")).toHaveText(artifactId);
  await waitForHydration(page);
  await page.getByRole("button", { name: "Copy bundle ID" }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(artifactId);
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download bundle" }).click()]);
  expect(JSON.parse(fs.readFileSync((await download.path())!, "utf8")).schema).toBe("rip.handoff_context_bundle.v1");

  await expect(page.getByLabel("Project (optional)")).toHaveValue("e2e-kept");
  await page.getByLabel("Title").fill("E2E desk: the read replica question");
  await page.getByRole("button", { name: "Continue in a new thread" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("E2E desk: the read replica question");
  await expect(page.getByText("project e2e-kept", { exact: true })).toBeVisible();
  await expect(page.getByTestId("parent-link")).toContainText("E2E desk: closing keeps a readable bundle");
});

test.describe("a first run on an empty server", () => {
  const port = basePort + 21;
  const origin = `http://127.0.0.1:${port}`;
  let server: ExtraServer;

  test.beforeAll(async () => {
    server = startExtraServer({ dataDir: prepareDataDir().dataDir, port });
    await waitUntil(async () => (await fetch(`${origin}/api/health`)).ok, "the empty server");
  });
  test.afterAll(() => {
    server?.stop();
    if (server) fs.rmSync(server.dataDir, { recursive: true, force: true });
  });

  test("the empty desk and the connect page show claude mcp add with this server's own address", async ({ page }) => {
    await page.goto(`${origin}/`);
    const firstRun = page.getByTestId("first-run");
    await expect(firstRun).toContainText("Connect Claude to start");
    const http = `claude mcp add --transport http baton "${origin}/api/mcp?as=code"`;
    await expect(firstRun.getByTestId("connect-http-command")).toHaveText(http);

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Connect" }).click();
    await expect(page).toHaveURL(`${origin}/connect`);
    await expect(page).toHaveTitle("Connect Claude · Baton");
    await expect(page.getByTestId("connect-http-command")).toHaveText(http);
    await expect(page.getByTestId("connect-stdio-command")).toHaveText(/^claude mcp add baton --scope user .*-- node \/\S+\/bin\/baton\.mjs mcp --as code$/);
    await expect(page.getByTestId("connect-connector-url")).toHaveText(`${origin}/api/mcp`);
    expect(JSON.parse((await page.getByTestId("connect-desktop-config").textContent())!).mcpServers.baton.args[1]).toBe("mcp");
    expect(JSON.parse((await page.getByTestId("connect-hook").textContent())!).hooks.PreCompact[0].hooks[0].command).toMatch(/checkpoint --hook --push$/);
    await expect(page.getByText("Check it worked:")).toHaveCount(5);
    // What is copied is what is shown, without Markdown's backticks.
    expect(await page.locator("main").textContent()).not.toContain("`");
    await page.getByTestId("connect-step-code-http").getByRole("button", { name: "Copy command" }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(http);
  });

  test("revoking a token or deleting a webhook from the keyboard leaves focus on the next one, then on the empty list", async ({ page }) => {
    /** Opens the confirming dialog from the focused button and confirms it, with keys alone. */
    const confirmByKeyboard = async (ask: string, dialogName: string, confirm: string) => {
      await page.getByRole("button", { name: ask }).focus();
      await page.keyboard.press("Enter");
      const dialog = page.getByRole("dialog", { name: dialogName });
      await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
      await page.keyboard.press("Tab");
      await expect(dialog.getByRole("button", { name: confirm })).toBeFocused();
      await page.keyboard.press("Enter");
      await expect(page.getByRole("button", { name: ask })).toHaveCount(0);
    };

    await page.goto(`${origin}/settings/tokens`);
    for (const name of ["focus-a", "focus-b"]) {
      await page.getByLabel("Name").fill(name);
      await page.getByRole("button", { name: "Create token" }).click();
      await expect(page.getByRole("button", { name: `Revoke ${name}` })).toBeVisible();
    }
    // A token's row shows when it was made: the first <time> on the page.
    await waitForHydration(page);
    await confirmByKeyboard("Revoke focus-a", "Revoke focus-a?", "Revoke token");
    await expect(page.getByRole("button", { name: "Revoke focus-b" })).toBeFocused();
    await confirmByKeyboard("Revoke focus-b", "Revoke focus-b?", "Revoke token");
    await expect(page.getByText("No tokens yet.")).toBeFocused();

    const urls = ["http://127.0.0.1:9/focus-a", "http://127.0.0.1:9/focus-b"];
    // Within the hydrated page: the webhooks page has no <time> to tell hydration by until a delivery.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Webhooks" }).click();
    await expect(page).toHaveURL(`${origin}/settings/webhooks`);
    for (const url of urls) {
      await page.getByLabel("URL").fill(url);
      await page.getByRole("checkbox", { name: /question/ }).first().check();
      await page.getByRole("button", { name: "Add webhook" }).click();
      await expect(page.getByRole("button", { name: `Delete ${url}` })).toBeVisible();
    }
    await confirmByKeyboard(`Delete ${urls[0]}`, "Delete this webhook?", "Delete webhook");
    await expect(page.getByRole("button", { name: `Delete ${urls[1]}` })).toBeFocused();
    await confirmByKeyboard(`Delete ${urls[1]}`, "Delete this webhook?", "Delete webhook");
    await expect(page.getByText("No webhooks yet.")).toBeFocused();
  });
});

test("every page fits 390 px without scrolling sideways, and axe finds nothing critical or serious, light and dark", async ({ page, request }) => {
  test.setTimeout(240_000);
  const thread = await longThread(baseURL, 12, ["New: a **task list**\n\n- [x] parser\n- [ ] docs\n\n```ts\nconst veryLongLine = 'x'.repeat(400) // a long line that must scroll inside its block, never the page\n```"], "e2e");
  const closedId = await createThread(baseURL, "E2E desk: closed with a bundle and a fairly long title that has to wrap on a phone", "- [x] done\n- [ ] not done", "e2e");
  await addEntry(baseURL, closedId, "decision", "Keep it.", "chat");
  await request.post(`/api/handoffs/${closedId}/close`, { data: { archive: true } });
  const { from, to } = await failedDelivery(request, "e2e-walk");
  const pages = [
    "/",
    "/handoffs/new",
    `/handoffs/${thread}?as=chat`,
    `/handoffs/${closedId}`,
    "/handoffs/hof_AAAAAAAAAAAAAAAAAAAAA",
    "/agents",
    "/agents/new",
    `/agents/${from.id}`,
    `/agents/${to.id}`,
    "/agents/deadbeef",
    "/import",
    "/connect",
    "/settings/tokens",
    "/settings/webhooks",
  ];
  const problems: string[] = [];
  const walk = async (tab: Page, colorScheme: "light" | "dark") => {
    await tab.emulateMedia({ colorScheme });
    for (const width of [390, 1280]) {
      await tab.setViewportSize({ width, height: 844 });
      for (const path of pages) {
        // Server-rendered markup is what axe and the width check need; the page's scripts have loaded by the load event.
        await tab.goto(path);
        if (width === 390) {
          const overflow = await tab.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          if (overflow > 0) problems.push(`${path} (${colorScheme}) scrolls sideways by ${overflow} px at 390 px`);
        }
        for (const violation of await seriousViolations(tab)) problems.push(`${path} at ${width} px (${colorScheme}): ${violation}`);
      }
    }
  };
  // The two schemes in two tabs side by side: axe keeps one renderer busy on one core while the
  // other is mostly idle, and this walk was the longest end-to-end test (94 s in CI one tab at a time).
  const darkTab = await page.context().newPage();
  try {
    await Promise.all([walk(page, "light"), walk(darkTab, "dark")]);
  } finally {
    await darkTab.close();
  }
  expect(problems).toEqual([]);
});
