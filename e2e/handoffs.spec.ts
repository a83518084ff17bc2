import { expect, test, type Page } from "@playwright/test";
import { waitForHydration } from "./hydration";
import { expectNoAxeViolations } from "./support/axe";

async function createThroughForm(page: Page, title: string, content: string, project = "e2e") {
  await page.goto("/handoffs/new");
  await page.getByLabel("Title").fill(title);
  await page.getByLabel("Project (optional)").fill(project);
  await page.getByLabel("First context").fill(content);
  await page.getByRole("button", { name: "Create handoff" }).click();
  await expect(page).toHaveURL(/\/handoffs\/hof_[A-Za-z0-9_-]{21}/);
  return (await page.getByTestId("handoff-id").textContent())!.trim();
}

function historyRow(page: Page, id: string) {
  return page.locator(`li[data-handoff-id="${id}"]`);
}

test("create, copy, paste, converse, mark read and close a handoff", async ({ page }) => {
  const id = await createThroughForm(page, "E2E: implement auth", "We decided on **JWT** with refresh tokens.");
  await expect(page.getByText("Handoff created.")).toBeVisible();
  await expect(page.locator("li[data-seq] strong")).toHaveText("JWT");

  await page.getByRole("button", { name: "Copy ID" }).first().click();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe(id);

  // Paste it the way people do: stray spaces and backticks.
  await page.goto("/");
  await page.getByLabel("Handoff ID or link").fill(`   \`${copied}\`  `);
  await page.getByRole("button", { name: "Open" }).click();
  await expect(page).toHaveURL(new RegExp(`/handoffs/${id}$`));

  await page.goto("/");
  // Nothing unread for chat: the row shows no chat badge at all.
  await expect(historyRow(page, id)).toBeVisible();
  await expect(historyRow(page, id).getByText(/^Chat: /)).toHaveCount(0);

  // Code posts a question from the thread page.
  await page.goto(`/handoffs/${id}?as=code`);
  await page.getByLabel("Type").selectOption("question");
  await page.getByRole("radio", { name: "code" }).check();
  await page.getByLabel("Content").fill("Should refresh tokens expire after 7d or 30d?");
  await page.getByRole("button", { name: "Post entry" }).click();
  await expect(page.locator("li[data-seq]")).toHaveCount(2);
  await expect(page.getByRole("textbox", { name: "Content" })).toHaveValue("");

  await page.goto("/");
  await expect(historyRow(page, id).getByText("Chat: 1 unread")).toBeVisible();
  await expect(historyRow(page, id).getByText(/^Code: /)).toHaveCount(0);

  // Chat reads it: viewing never marks read, the button does.
  await page.goto(`/handoffs/${id}?as=chat`);
  await expect(page.getByTestId("new-count")).toHaveText("1 new for chat");
  await expect(page.locator("li[data-new]")).toHaveCount(1);
  await page.reload();
  await expect(page.getByTestId("new-count")).toHaveText("1 new for chat");
  await page.getByRole("button", { name: "Mark read as chat" }).click();
  await expect(page.getByTestId("new-count")).toHaveText("Nothing new for chat");
  await page.goto("/");
  await expect(historyRow(page, id)).toBeVisible();
  await expect(historyRow(page, id).getByText(/^Chat: /)).toHaveCount(0);

  // Close: the dialog says what happens, then the thread shows its wiped state.
  await page.goto(`/handoffs/${id}`);
  await waitForHydration(page);
  await page.getByRole("button", { name: "Close handoff…" }).click();
  const dialog = page.getByRole("dialog", { name: "Close this handoff?" });
  // It names the thread it deletes: the page behind the dimmed backdrop is no longer read.
  await expect(dialog.getByTestId("close-target")).toHaveText(`E2E: implement auth ${id}`);
  await expect(dialog).toContainText("All 2 entries will be permanently deleted");
  await dialog.getByRole("button", { name: "Close and delete entries" }).click();
  await expect(page.getByText("This handoff is completed.")).toBeVisible();
  await expect(page.getByText(/Its entries were wiped when it closed/)).toBeVisible();
  await expect(page.locator("li[data-seq]")).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Post entry" })).toHaveCount(0);
  // Nothing is left to read, so no read controls; the notice says why the list is empty.
  await expect(page.getByRole("button", { name: /^Mark read as/ })).toHaveCount(0);
  await expect(page.getByText(/which is why it lists none/)).toBeVisible();
  await page.goto("/?status=completed");
  await expect(historyRow(page, id)).toContainText("Completed");
  await expect(historyRow(page, id)).toContainText("0 entries");
});

test("new entries and unread counts appear on open pages without a reload", async ({ page, request }) => {
  const created = await request.post("/api/handoffs", { data: { title: "E2E: live updates", content: "watch this", project: "e2e" } });
  expect(created.status()).toBe(201);
  const { handoff } = await created.json();

  await page.goto("/");
  await expect(historyRow(page, handoff.id)).toBeVisible();
  await expect(historyRow(page, handoff.id).getByText(/^Chat: /)).toHaveCount(0);
  // Measured from when the page is live, not from when it was served: hydration is not the subject here.
  await expect(page.getByTestId("live-status")).toHaveAttribute("data-live-path", "stream");
  const posted = await request.post(`/api/handoffs/${handoff.id}/entries`, {
    data: { type: "progress", content: "written by an agent", asClient: "code" },
  });
  expect(posted.status()).toBe(201);
  await expect(historyRow(page, handoff.id).getByText("Chat: 1 unread")).toBeVisible({ timeout: 2_000 });

  await page.goto(`/handoffs/${handoff.id}`);
  await expect(page.locator("li[data-seq]")).toHaveCount(2);
  await expect(page.getByTestId("live-status")).toHaveAttribute("data-live-path", "stream");
  await request.post(`/api/handoffs/${handoff.id}/entries`, { data: { type: "done", content: "second agent entry", asClient: "code" } });
  await expect(page.getByText("second agent entry")).toBeVisible({ timeout: 2_000 });
  await expect(page.getByTestId("new-count")).toHaveText("2 new for chat");
});

test("a bad or unknown ID gives a clear message in place", async ({ page }) => {
  await page.goto("/");
  const box = page.getByLabel("Handoff ID or link");
  await box.fill("hof_nope");
  await page.getByRole("button", { name: "Open" }).click();
  await expect(page.getByText("That is not a handoff ID.")).toBeVisible();
  await expect(page).toHaveURL(/\/$/);
  await box.fill("hof_AAAAAAAAAAAAAAAAAAAAA");
  await page.getByRole("button", { name: "Open" }).click();
  await expect(page.getByText("No handoff hof_AAAAAAAAAAAAAAAAAAAAA here.")).toBeVisible();
  await page.goto("/handoffs/hof_AAAAAAAAAAAAAAAAAAAAA");
  await expect(page.getByRole("heading", { name: "No such handoff" })).toBeVisible();
});

test("the create form shows field errors and keeps what was typed", async ({ page }) => {
  await page.goto("/handoffs/new");
  await page.getByLabel("Title").fill("Keeps my text");
  await page.getByLabel("Project (optional)").fill("Not A Tag");
  await page.getByRole("button", { name: "Create handoff" }).click();
  await expect(page.getByText(/project must be 1–40 characters/)).toBeVisible();
  await expect(page.getByText("content must not be empty")).toBeVisible();
  await expect(page.getByLabel("Title")).toHaveValue("Keeps my text");
});

test("script and event-handler payloads render as text", async ({ page }) => {
  // The link stands in its own paragraph: after a line that opens with <script>, Markdown reads
  // the rest of that block as raw HTML (shown as text) and would not parse a link there.
  const payload = '<script>window.__pwned = 1</script> <img src="x" onerror="window.__pwned = 2">\n\n[link](javascript:window.__pwned=3) and # Heading';
  const id = await createThroughForm(page, "E2E: hostile content", payload);
  const entry = page.locator("li[data-seq]").first();
  await expect(entry).toContainText("<script>window.__pwned = 1</script>");
  await expect(entry).toContainText('onerror="window.__pwned = 2"');
  await expect(entry.locator("img, script")).toHaveCount(0);
  await expect(entry.getByText("link", { exact: true })).toBeVisible();
  await expect(entry.locator('a[href^="javascript"], [onerror]')).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  expect(id).toMatch(/^hof_/);
});

test("filters live in the URL", async ({ page, request }) => {
  await request.post("/api/handoffs", { data: { title: "E2E: filter needle", content: "x", project: "needle" } });
  await page.goto("/");
  await page.getByLabel("Search titles").fill("filter needle");
  await expect(page).toHaveURL(/q=filter\+needle/);
  await expect(page.locator("li[data-handoff-id]")).toHaveCount(1);
  await page.getByLabel("Project").selectOption("needle");
  await expect(page).toHaveURL(/project=needle/);
  await page.getByLabel("Status").selectOption("completed");
  await expect(page.getByText("No handoff matches these filters.")).toBeVisible();
});

test("pages have no accessibility violations and fit 375 px", async ({ page, request }) => {
  const created = await request.post("/api/handoffs", {
    data: { title: "E2E: accessibility with a fairly long title that has to wrap on phones", content: "# Heading\n\n#### Skipped levels\n\n- a\n- b\n\n`code`", project: "a11y" },
  });
  const { handoff } = await created.json();
  await request.post(`/api/handoffs/${handoff.id}/entries`, { data: { type: "question", content: "new for chat", asClient: "code" } });
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 900 });
    for (const path of ["/", "/handoffs/new", `/handoffs/${handoff.id}`, "/handoffs/hof_AAAAAAAAAAAAAAAAAAAAA"]) {
      await page.goto(path);
      await expectNoAxeViolations(page);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${path} overflows at ${width}px`).toBeLessThanOrEqual(0);
    }
  }
});

test("the close button opens its confirmation before React hydrates", async ({ page, request }) => {
  const created = await request.post("/api/handoffs", { data: { title: "E2E: not hydrated yet", content: "x" } });
  const { handoff } = await created.json();
  // Streamed HTML still arrives (its inline scripts run), but React's chunks never load, so no
  // click handler is attached: what a slow connection looks like in the first seconds.
  await page.route("**/_next/static/chunks/**", (route) => route.abort());
  await page.goto(`/handoffs/${handoff.id}`);
  await page.getByRole("button", { name: "Close handoff…" }).click();
  const dialog = page.getByRole("dialog", { name: "Close this handoff?" });
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
});

test("text written on the desk is stored with the line breaks typed (LF), as every other door stores it", async ({ page, request }) => {
  const id = await createThroughForm(page, "E2E: line breaks", "first line\nsecond line");
  const reply = page.getByRole("textbox", { name: "Content" });
  await waitForHydration(page);
  await reply.fill("a reply\nover two lines");
  await page.getByRole("button", { name: /^Post/ }).click();
  await expect(page.locator("li[data-number='2']")).toBeVisible();
  const thread = (await (await request.get(`/api/handoffs/${id}`)).json()) as { entries: { content: string }[] };
  // A form sends a text area's breaks as CRLF: they were stored so.
  expect(thread.entries.map((entry) => entry.content)).toEqual(["first line\nsecond line", "a reply\nover two lines"]);
});
