import { expect, test, type APIRequestContext } from "@playwright/test";
import { MAX_SEARCH_LENGTH } from "../lib/search/query";
import { expectNoAxeViolations } from "./support/axe";

/** Issue 17, point 4: search over titles and entries, from the home page and the API. */

async function handoffWithEntry(request: APIRequestContext, title: string, entry: string, project = "e2e-search") {
  const created = await request.post("/api/handoffs", { data: { title, content: "First context, nothing special.", project } });
  expect(created.status()).toBe(201);
  const { handoff } = await created.json();
  const added = await request.post(`/api/handoffs/${handoff.id}/entries`, { data: { type: "decision", content: entry, asClient: "code" } });
  expect(added.status()).toBe(201);
  return handoff.id as string;
}

test("a word only in an entry is found from the home page and from the API", async ({ page, request }) => {
  const id = await handoffWithEntry(request, "E2E search: a plain title", "We picked the xylophonist approach for retries, with backoff.");
  await handoffWithEntry(request, "E2E search: another thread", "Nothing to find in here.");

  const answer = await request.get("/api/handoffs?q=xylophonist");
  expect(answer.status()).toBe(200);
  const found = await answer.json();
  expect(found.total).toBe(1);
  expect(found.items[0]).toMatchObject({ id, match: { excerpt: { in: "entry", type: "decision", fromClient: "code" } } });
  expect(found.items[0].match.excerpt.text).toContainEqual({ text: "xylophonist", match: true });
  // Phrases and prefixes through the API too; what people type never breaks the query.
  expect((await (await request.get(`/api/handoffs?q=${encodeURIComponent('"xylophonist approach"')}`)).json()).total).toBe(1);
  expect((await (await request.get("/api/handoffs?q=xylophon*")).json()).total).toBe(1);
  for (const hostile of ['"', "NEAR(", "*", 'title:"x', "AND OR NOT", "(((", "\u0000"]) {
    const response = await request.get(`/api/handoffs?q=${encodeURIComponent(hostile)}`);
    expect(response.status(), hostile).toBe(200);
  }
  const tooLong = await request.get(`/api/handoffs?q=${"x".repeat(201)}`);
  expect(tooLong.status()).toBe(400);
  expect((await tooLong.json()).error.message).toMatch(/search must be at most 200 characters/);

  await page.goto("/");
  await page.getByLabel("Search titles and entries").fill("xylophonist");
  await expect(page).toHaveURL(/[?&]q=xylophonist/);
  const rows = page.locator("li[data-handoff-id]");
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAttribute("data-handoff-id", id);
  const excerpt = rows.first().getByTestId("search-excerpt");
  await expect(excerpt).toContainText(/entry #\d+, decision from code:/);
  await expect(excerpt.locator("mark")).toHaveText("xylophonist");
  // The marked excerpt is text: no markup from the index reaches the page.
  expect(await excerpt.locator("mark").evaluate((mark) => mark.innerHTML)).toBe("xylophonist");

  await expectNoAxeViolations(page);
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
});

test("filters survive paging", async ({ page, request }) => {
  // 55 matches: two pages of 50. Chat creates each, so each is unread for code.
  for (let index = 0; index < 55; index++) {
    const created = await request.post("/api/handoffs", { data: { title: `E2E marmoset ${index}`, content: "paging through search", project: "e2e-paging" } });
    expect(created.status()).toBe(201);
  }
  await page.goto("/?q=marmoset&project=e2e-paging&unread=code");
  await expect(page.getByText("55 handoffs match")).toBeVisible();
  await expect(page.locator("li[data-handoff-id]")).toHaveCount(50);

  await page.getByRole("link", { name: "More matches →" }).click();
  await expect(page).toHaveURL(/page=2/);
  const url = new URL(page.url());
  expect(Object.fromEntries(url.searchParams)).toEqual({ q: "marmoset", project: "e2e-paging", unread: "code", page: "2" });
  await expect(page.getByText("Page 2 of 2")).toBeVisible();
  await expect(page.locator("li[data-handoff-id]")).toHaveCount(5);
  // The form shows the filters the page was reached with.
  await expect(page.getByLabel("Search titles and entries")).toHaveValue("marmoset");
  await expect(page.getByLabel("Project")).toHaveValue("e2e-paging");
  await expect(page.getByLabel("Unread")).toHaveValue("code");

  await page.getByRole("link", { name: "← Better matches" }).click();
  await expect(page).not.toHaveURL(/page=/);
  expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ q: "marmoset", project: "e2e-paging", unread: "code" });
  await expect(page.locator("li[data-handoff-id]")).toHaveCount(50);

  // Unread for chat: none (chat wrote every one of them).
  await page.getByLabel("Unread").selectOption("chat");
  await expect(page).toHaveURL(/unread=chat/);
  await expect(page.getByText("No handoff matches these filters.")).toBeVisible();
});

test("a word in more than the newest 1,000 entries answers capped: '+' on the desk and capped in the API, and a word more narrows it", async ({ page, request }) => {
  const old = await handoffWithEntry(request, "E2E capped: the oldest", "quillwort beside a gantrybell");
  const created = await request.post("/api/handoffs", { data: { title: "E2E capped: the busy one", content: "quillwort 1", project: "e2e-search" } });
  const { handoff } = await created.json();
  for (let index = 2; index <= 1000; index++) {
    const added = await request.post(`/api/handoffs/${handoff.id}/entries`, { data: { type: "progress", content: `quillwort ${index}` } });
    expect(added.status()).toBe(201);
  }
  const capped = await (await request.get("/api/handoffs?q=quillwort")).json();
  expect(capped).toMatchObject({ capped: true, total: 1, items: [{ id: handoff.id }] });
  const narrowed = await (await request.get("/api/handoffs?q=quillwort%20gantrybell")).json();
  expect(narrowed).toMatchObject({ capped: false, total: 1, items: [{ id: old }] });

  await page.goto("/?q=quillwort");
  // One long thread holds the newest 1,000 matches: the page says older matches exist, not "1+ handoffs match".
  await expect(page.getByText("1 handoff among the newest matches; older matches exist. A word more finds them.")).toBeVisible();
  await expectNoAxeViolations(page);
});

/**
 * The palette offered "Search every handoff for …" for a query longer than the search takes, and
 * choosing it led to the search's refusal. Past the limit it offers no search and says why; at
 * the limit it still offers it, and the search answers.
 */
test("the palette offers a search only for a query the search takes", async ({ page }) => {
  await page.goto("/");
  await page.getByRole("searchbox", { name: /Search titles and entries/ }).waitFor();
  await page.keyboard.press("Control+k");
  const palette = page.getByRole("dialog", { name: "Jump to" });
  const box = palette.getByRole("combobox");
  const searchOption = palette.getByRole("option", { name: /^Search every handoff for/ });

  await box.fill("q".repeat(MAX_SEARCH_LENGTH + 1));
  await expect(palette.getByTestId("palette-note")).toHaveText(`A search takes at most ${MAX_SEARCH_LENGTH} characters (this is ${MAX_SEARCH_LENGTH + 1}): shorten it to search every handoff.`);
  await expect(searchOption).toHaveCount(0);

  await box.fill("q".repeat(MAX_SEARCH_LENGTH));
  await expect(searchOption).toBeVisible();
  await expect(palette.getByTestId("palette-note")).toHaveCount(0);
  await searchOption.click();
  await expect(page).toHaveURL(/\/\?q=q{10}/);
  await expect(page.getByRole("searchbox", { name: /Search titles and entries/ })).toHaveValue("q".repeat(MAX_SEARCH_LENGTH));
  await expect(page.getByText(/at most \d+ characters/)).toHaveCount(0);
});

/**
 * While the palette waited for the answer to what was just typed, it listed the previous query's
 * handoffs, and Enter opened the first of them: a thread that did not match what was typed.
 */
test("Enter in the palette never opens a result of an earlier query", async ({ page, request }) => {
  const created = await request.post("/api/handoffs", { data: { title: "E2E palette kittiwake thread", content: "kittiwake notes", project: "e2e-search" } });
  expect(created.status()).toBe(201);
  const { handoff } = await created.json();
  // The answer for the longer query is slow to come.
  await page.route(/\/api\/handoffs\?.*zebra/, async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 8_000));
    await route.continue();
  });
  await page.goto("/");
  await page.getByRole("searchbox", { name: /Search titles and entries/ }).waitFor();
  await page.keyboard.press("Control+k");
  const palette = page.getByRole("dialog", { name: "Jump to" });
  const box = palette.getByRole("combobox");
  await box.fill("kittiwake");
  await expect(palette.getByRole("option", { name: /E2E palette kittiwake thread/ })).toBeVisible();

  await box.fill("kittiwake zebra");
  await expect(palette.getByRole("option", { name: /^Search every handoff for “kittiwake zebra”/ })).toBeVisible();
  // Still waiting for the answer: Enter searches, and the earlier query's thread is not offered.
  await box.press("Enter");
  await expect(page).toHaveURL(/\/\?q=kittiwake\+zebra$/);
  expect(page.url()).not.toContain(handoff.id);
});
