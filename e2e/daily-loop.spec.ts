import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { connectHttpClient } from "../tests/support/mcp-clients";
import { waitForHydration } from "./hydration";
import { expectNoAxeViolations } from "./support/axe";

/**
 * The desk's daily loop (issue 28): search answers where you look (and ⌘K jumps), a reply
 * answers its question everywhere, "Needs you now" is one row per thread with Done and Snooze,
 * one number per entry, and a long thread opens with its beginning and the first new entry.
 * Each at 1280×800 and 390×844, light and dark, against the built app.
 */
const VIEWS = [
  { width: 1280, height: 800, colorScheme: "light" },
  { width: 1280, height: 800, colorScheme: "dark" },
  { width: 390, height: 844, colorScheme: "light" },
  { width: 390, height: 844, colorScheme: "dark" },
] as const;

async function inView(page: Page, view: (typeof VIEWS)[number]) {
  await page.setViewportSize({ width: view.width, height: view.height });
  await page.emulateMedia({ colorScheme: view.colorScheme });
}

async function createThread(request: APIRequestContext, title: string, content = "Context for the thread."): Promise<string> {
  const created = await request.post("/api/handoffs", { data: { title, content, project: "e2e-loop" } });
  expect(created.status()).toBe(201);
  return ((await created.json()) as { handoff: { id: string } }).handoff.id;
}

async function post(request: APIRequestContext, id: string, data: Record<string, unknown>): Promise<{ seq: number; number: number; answers: number | null }> {
  const response = await request.post(`/api/handoffs/${id}/entries`, { data });
  expect(response.status(), await response.text()).toBe(201);
  return ((await response.json()) as { entry: { seq: number; number: number; answers: number | null } }).entry;
}

/** Wholly inside the window as it is now (the first viewport, before any scrolling). */
async function expectInFirstViewport(page: Page, selector: string) {
  const box = await page.locator(selector).first().boundingBox();
  const height = page.viewportSize()!.height;
  expect(box, selector).not.toBeNull();
  expect(box!.y).toBeGreaterThanOrEqual(0);
  expect(box!.y + box!.height).toBeLessThanOrEqual(height);
}

let mcp: Client;
test.beforeAll(async () => {
  mcp = await connectHttpClient(`${process.env.BATON_E2E_BASE_URL}/api/mcp`);
});
test.afterAll(async () => {
  await mcp?.close();
});

async function getHandoffOverMcp(id: string) {
  const result = await mcp.callTool({ name: "get_handoff", arguments: { id, as_client: "chat" } });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  const text = (result.content as { type: string; text: string }[]).at(-1)!.text;
  return { structured: result.structuredContent as { entries: { number: number; seq: number; answers: number | null; content: string; created_at: string }[] }, text };
}

test("typing in the search box lists the matching thread in the first viewport, no Enter; Back returns to the desk; ⌘K opens a thread at the matching entry", async ({ page, request }) => {
  const id = await createThread(request, "E2E loop: search in place");
  await post(request, id, { type: "progress", content: "Nothing to find here.", asClient: "code" });
  const found = await post(request, id, { type: "decision", content: "The **quokkafrond** cache stays in front.", asClient: "chat" });
  expect(found.number).toBe(3);

  for (const view of VIEWS) {
    await inView(page, view);
    await page.goto("/");
    const box = page.getByLabel("Search titles and entries");
    await expectInFirstViewport(page, "#filter-q");
    await page.keyboard.press("/");
    await expect(box).toBeFocused();
    await page.keyboard.type("quokkafrond");
    const row = page.locator(`li[data-handoff-id="${id}"]`);
    await expect(row).toBeVisible();
    await expect(page).toHaveURL(/\/\?q=quokkafrond$/);
    await expectInFirstViewport(page, `li[data-handoff-id="${id}"]`);
    // Where the word was found: the entry's number, and the link opens the thread there.
    await expect(row.getByTestId("search-where")).toHaveText("entry #3, decision from chat:");
    await expect(row.getByTestId("search-excerpt").locator("mark")).toHaveText("quokkafrond");
    // Filters apply at once too, with no Apply.
    await page.getByLabel("Status").selectOption("completed");
    await expect(page).toHaveURL(/status=completed/);
    await expect(row).toHaveCount(0);
    await page.getByLabel("Status").selectOption("");
    await expect(row).toBeVisible();
    await expect(page.getByRole("button", { name: "Apply" })).toHaveCount(0);
    await page.goBack();
    await expect(page).toHaveURL(/\/$/);
    await expect(box).toHaveValue("");
    await expect(page.getByRole("heading", { name: "History" })).toBeVisible();
  }

  for (const view of VIEWS) {
    await inView(page, view);
    await page.goto("/agents");
    await page.keyboard.press("ControlOrMeta+k");
    const palette = page.getByRole("combobox", { name: "Jump to a handoff, an agent or a page" });
    await expect(palette).toBeFocused();
    await palette.fill("quokkafrond");
    await expect(page.getByTestId("palette-results").getByRole("option", { name: /E2E loop: search in place/ })).toBeVisible();
    await expect(page.getByTestId("palette-results").getByRole("option", { selected: true })).toContainText("E2E loop: search in place");
    if (view.width === 390) await expectNoAxeViolations(page);
    await palette.press("Enter");
    await expect(page).toHaveURL(new RegExp(`/handoffs/${id}\\?entry=3#entry-3$`));
    await expect(page.locator("#entry-3")).toBeInViewport();
    // A pasted ID and a page jump too.
    await page.keyboard.press("ControlOrMeta+k");
    await palette.fill(`  \`${id}\` `);
    await expect(page.getByTestId("palette-results").getByRole("option", { selected: true })).toHaveText(`Open ${id}`);
    await palette.fill("webhooks");
    await palette.press("Enter");
    await expect(page).toHaveURL(/\/settings\/webhooks$/);
  }
  await expectNoAxeViolations(page);
});

test("replying to a question answers it: off Needs you now, out of the kept bundle's open questions, and get_handoff shows the link", async ({ page, request }) => {
  const id = await createThread(request, "E2E loop: a reply answers");
  const question = await post(request, id, { type: "question", content: "Do we keep the **v1** tokens?", asClient: "code" });
  const row = page.getByTestId("attention-thread").filter({ hasText: "E2E loop: a reply answers" });

  await page.goto("/");
  await expect(row).toContainText("1 question, 1 new entry for chat");
  await row.getByRole("link").click();
  await expect(page).toHaveURL(new RegExp(`/handoffs/${id}\\?as=chat&entry=${question.number}#entry-${question.number}$`));
  // `r` on the focused question replies to it; the type defaults to the answering one.
  await page.locator(`#entry-${question.number}`).focus();
  await page.keyboard.press("r");
  await expect(page.getByRole("heading", { name: `Reply to #${question.number}` })).toBeVisible();
  await expect(page.getByLabel("Content")).toBeFocused();
  await expect(page.getByLabel("Type")).toHaveValue("decision");
  await page.getByLabel("Content").fill("No: v1 tokens go at the next deploy.");
  await page.getByRole("button", { name: "Post entry" }).click();
  const answer = page.locator("li[data-number='3']");
  await expect(answer.getByTestId("answers-link")).toHaveText(`answers #${question.number}`);
  await expect(page.locator(`#entry-${question.number}`).getByTestId("answered-by")).toHaveText("answered in #3");

  const { structured, text } = await getHandoffOverMcp(id);
  expect(structured.entries.map((entry) => [entry.number, entry.answers])).toEqual([
    [1, null],
    [2, null],
    [3, 2],
  ]);
  // The text block is the thread as a transcript: the link is in the entry's heading.
  expect(text).toMatch(/\n\[q-[0-9a-f]{12}\] #3 \w+ from chat, answers #2, /);

  const bundle = (await (await request.get(`/handoffs/${id}/export?format=bundle`)).json()) as { summary_markdown: string };
  expect(bundle.summary_markdown).toContain("### Open questions\nNone.");
  expect(bundle.summary_markdown).toMatch(/### Latest decision\n- \*\*#3\*\* \(chat answering #2\) No: v1 tokens/);

  for (const view of VIEWS) {
    await inView(page, view);
    await page.goto("/");
    await expect(page.getByTestId("attention-thread").filter({ hasText: "E2E loop: a reply answers" })).toHaveCount(0);
  }
});

test("five questions in one thread make one row saying 5; Done removes it for good, a snoozed-until-new row comes back with the next entry", async ({ page, request }) => {
  const done = await createThread(request, "E2E loop: five questions");
  for (let n = 1; n <= 5; n++) await post(request, done, { type: "question", content: `Question number ${n}?`, asClient: "code" });
  const snoozed = await createThread(request, "E2E loop: snoozed until new");
  await post(request, snoozed, { type: "question", content: "Later, maybe?", asClient: "code" });
  const rowOf = (title: string) => page.getByTestId("attention-thread").filter({ hasText: title });

  for (const view of VIEWS) {
    await inView(page, view);
    await page.goto("/");
    await expect(rowOf("E2E loop: five questions")).toHaveCount(1);
    await expect(rowOf("E2E loop: five questions").getByTestId("attention-counts")).toHaveText("5 questions, 5 new entries");
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  }
  await expectNoAxeViolations(page);

  // `e` on the focused row: Done.
  await rowOf("E2E loop: five questions").focus();
  await page.keyboard.press("e");
  await expect(rowOf("E2E loop: five questions")).toHaveCount(0);
  await expect(page.getByRole("status").filter({ hasText: "is off the list" })).toBeVisible();
  await page.reload();
  await expect(rowOf("E2E loop: snoozed until new")).toHaveCount(1);
  await expect(rowOf("E2E loop: five questions")).toHaveCount(0);

  await rowOf("E2E loop: snoozed until new").getByText("Snooze", { exact: true }).click();
  await rowOf("E2E loop: snoozed until new").getByRole("button", { name: "Until a new entry" }).click();
  await expect(rowOf("E2E loop: snoozed until new")).toHaveCount(0);
  await page.reload();
  await expect(rowOf("E2E loop: snoozed until new")).toHaveCount(0);
  await post(request, snoozed, { type: "progress", content: "Something new.", asClient: "code" });
  await page.reload();
  await expect(rowOf("E2E loop: snoozed until new").getByTestId("attention-counts")).toHaveText("1 question, 2 new entries");
  await expect(rowOf("E2E loop: five questions")).toHaveCount(0);
});

test("an entry's number is the same in the thread, its anchor, search results, the kept bundle and get_handoff", async ({ page, request }) => {
  // Another thread first, so seqs and numbers differ.
  await post(request, await createThread(request, "E2E loop: noise"), { type: "progress", content: "noise", asClient: "chat" });
  const id = await createThread(request, "E2E loop: one number");
  await post(request, id, { type: "task", content: "First task.", asClient: "chat" });
  const entry = await post(request, id, { type: "progress", content: "The wombatique index is built.", asClient: "code" });
  expect(entry.number).toBe(3);
  expect(entry.seq).not.toBe(3);

  for (const view of VIEWS) {
    await inView(page, view);
    await page.goto(`/handoffs/${id}#entry-3`);
    const card = page.locator("#entry-3");
    await expect(card).toContainText("The wombatique index is built.");
    await expect(card.getByTestId("entry-number")).toHaveText("#3");
    await expect(card.getByTestId("entry-number")).toHaveAttribute("href", "#entry-3");
    await expect(card).toBeInViewport();
    await page.goto("/?q=wombatique");
    await expect(page.locator(`li[data-handoff-id="${id}"]`).getByTestId("search-where")).toHaveText("entry #3, progress from code:");
  }
  const { structured, text } = await getHandoffOverMcp(id);
  expect(structured.entries.at(-1)).toMatchObject({ number: 3, seq: entry.seq });
  // The transcript's heading names the entry's number and its seq (what after_seq takes).
  expect(text).toMatch(new RegExp(`\\n\\[q-[0-9a-f]{12}\\] #3 progress from code, ${structured.entries.at(-1)!.created_at.replaceAll(".", "\\.")}, seq ${entry.seq}\\n`));
  const bundle = (await (await request.get(`/handoffs/${id}/export?format=bundle`)).json()) as { summary_markdown: string };
  expect(bundle.summary_markdown).toContain("- **#3** (code) The wombatique index is built.");
  expect(bundle.summary_markdown).toContain("cut at #3");
});

test("a 300-entry thread opens with entry #1 and the first new entry on screen, the middle folded, no click", async ({ page, request }) => {
  const id = await createThread(request, "E2E loop: three hundred entries", "The opening context: **why** this thread exists.");
  // Chat writes #2–#200 (its own, so read for chat); code writes #201–#300, new for chat.
  for (let n = 2; n <= 300; n++) await post(request, id, { type: "progress", content: `Entry ${n}.`, asClient: n <= 200 ? "chat" : "code" });

  for (const view of VIEWS) {
    await inView(page, view);
    await page.goto(`/handoffs/${id}?as=chat`);
    // Opening at the first new entry is the page's own doing, once hydrated (a reload may also restore the old scroll).
    await waitForHydration(page);
    await expect(page.getByRole("list", { name: "Opening entry" }).locator("#entry-1")).toContainText("The opening context: why this thread exists.");
    await expect(page.getByTestId("earlier-count")).toHaveText("199 earlier entries");
    await expect(page.locator("#entry-201")).toBeInViewport();
    await expect(page.locator("#entry-201")).toHaveAttribute("data-new", "true");
    await expect(async () => {
      await page.evaluate(() => window.scrollTo(0, 0));
      await expect(page.locator("#entry-1")).toBeInViewport({ timeout: 1_000 });
    }).toPass();
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  }
  await expectNoAxeViolations(page);
  // The rest of the new entries follow on request.
  await expect(page.getByTestId("later-count")).toHaveText("50 later entries");
  await page.getByRole("button", { name: "Show later" }).click();
  await expect(page.locator("#entry-300")).toHaveCount(1);
  await expect(page.getByTestId("later-count")).toHaveCount(0);
  // A link to a folded entry opens the thread there.
  await page.goto(`/handoffs/${id}?as=chat#entry-120`);
  await expect(page).toHaveURL(new RegExp(`entry=120#entry-120$`));
  await expect(page.locator("#entry-120")).toBeInViewport();
});
