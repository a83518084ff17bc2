import { execFileSync } from "node:child_process";
import Database from "better-sqlite3";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { THREAD_PAGE_SIZE } from "../lib/handoffs/limits";
import { waitForHydration } from "./hydration";
import { whenHydrated } from "./support/extra-server";

/**
 * The thread page as a tester found it: a reply lost from view when another process closed the
 * thread, long titles scrolling a phone sideways, focus dropped by "Show earlier" and "Show all",
 * a source menu nothing could dismiss, `j` restarting at #1 after a deep link, and a code block's
 * Copy over its first line.
 */
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

async function newThread(request: APIRequestContext, title: string, content = "start"): Promise<string> {
  const created = await request.post("/api/handoffs", { data: { title, content } });
  expect(created.status()).toBe(201);
  return ((await created.json()) as { handoff: { id: string } }).handoff.id;
}

/** A thread of `count` entries: the first through the API, the rest written straight into the served database (both sides have read them). */
async function seedThread(request: APIRequestContext, title: string, count: number): Promise<string> {
  const id = await newThread(request, title, "Entry 1");
  const db = new Database(process.env.DATABASE_URL!.replace(/^file:/, ""));
  try {
    db.pragma("busy_timeout = 10000");
    const { created_at: createdAt } = db.prepare("SELECT created_at FROM handoff_entries WHERE handoff_id = ?").get(id) as { created_at: unknown };
    const insert = db.prepare("INSERT INTO handoff_entries (handoff_id, number, from_client, type, content, created_at) VALUES (?, ?, ?, 'progress', ?, ?)");
    db.transaction(() => {
      for (let number = 2; number <= count; number++) insert.run(id, number, number % 2 ? "code" : "chat", `Entry ${number}`, createdAt);
      const { last } = db.prepare("SELECT MAX(seq) AS last FROM handoff_entries WHERE handoff_id = ?").get(id) as { last: number };
      db.prepare("UPDATE handoffs SET last_number = ?, chat_last_seen = ?, code_last_seen = ? WHERE id = ?").run(count, last, last, id);
    })();
  } finally {
    db.close();
  }
  return id;
}

const reply = (page: Page) => page.getByRole("textbox", { name: "Content" });
const sourceMenu = (page: Page) => page.getByTestId("source-menu");
const shownNumbers = (page: Page) => page.locator("li[data-number]").evaluateAll((items) => items.map((item) => Number(item.getAttribute("data-number"))));
/** The number of the focused entry, else the focused element's tag. */
const focusedNumber = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute("data-number") ?? document.activeElement?.tagName);
const sidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

test("a reply being written when another process closes the thread stays readable, to copy, discard or carry into the continuation; the source menu and the kept bundle follow the close", async ({ page, request }) => {
  await page.setViewportSize(PHONE);
  const id = await newThread(request, "E2E thread page: closed while replying");
  await page.goto(`/handoffs/${id}`);
  await (await whenHydrated(reply(page))).fill("half a reply\nwith a second line");

  // Another process closes it, keeping a bundle so the thread can be continued.
  execFileSync(process.execPath, ["bin/baton.mjs", "close", id, "--archive"], { env: process.env, encoding: "utf8" });
  await expect(page.getByText("This handoff is completed")).toBeVisible({ timeout: 20_000 });
  await expect(reply(page)).toHaveCount(0);
  const kept = page.getByRole("textbox", { name: "Your unposted reply is kept" });
  await expect(kept).toHaveValue("half a reply\nwith a second line");
  await expect(kept).not.toBeEditable();
  await page.getByRole("button", { name: "Copy reply" }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("half a reply\nwith a second line");
  // The parts the server renders follow without a reload: nothing left to export, the kept bundle and its Continue.
  await expect(sourceMenu(page).locator("summary")).toHaveText(/^Source\b(?! & export)/);
  await expect(page.getByRole("button", { name: "Continue in a new thread" })).toBeVisible();
  await expect(kept).toHaveValue("half a reply\nwith a second line");

  // Opened again later, the completed thread still shows it; the continuation offers to take it.
  await page.reload();
  await expect(kept).toHaveValue("half a reply\nwith a second line");
  await (await whenHydrated(page.getByRole("button", { name: "Continue in a new thread" }))).click();
  await expect(page).not.toHaveURL(new RegExp(`/handoffs/${id}$`));
  const carried = page.getByTestId("carried-draft");
  await expect(carried).toContainText("half a reply");
  await (await whenHydrated(carried.getByRole("button", { name: "Use it in this reply" }))).click();
  await expect(reply(page)).toHaveValue("half a reply\nwith a second line");
  await expect(reply(page)).toBeFocused();
  await expect(carried).toHaveCount(0);
  await page.goto(`/handoffs/${id}`);
  await waitForHydration(page);
  await expect(page.getByTestId("kept-draft")).toHaveCount(0);
});

test("a completed thread opened with a draft of its reply shows it until it is discarded", async ({ page, request }) => {
  const id = await newThread(request, "E2E thread page: discard a kept reply");
  await page.goto(`/handoffs/${id}`);
  await (await whenHydrated(reply(page))).fill("never posted");
  expect((await request.post(`/api/handoffs/${id}/close`, { data: {} })).ok()).toBe(true);
  await page.reload();
  await expect(page.getByRole("textbox", { name: "Your unposted reply is kept" })).toHaveValue("never posted");
  await page.getByRole("button", { name: "Discard reply" }).click();
  await expect(page.getByTestId("kept-draft")).toHaveCount(0);
  expect(await page.evaluate((key) => localStorage.getItem(key), `baton.draft.reply.${id}`)).toBeNull();
});

test("the longest project tag (40 characters) fits a 360 px thread page, desk and agent page without sideways scrolling", async ({ page, request }) => {
  await page.setViewportSize({ width: 360, height: 800 });
  // No hyphen: nothing in it lets a line break.
  const project = `e2e${"p".repeat(37)}`;
  const created = await request.post("/api/handoffs", { data: { title: "E2E thread page: longest project", project, content: "start", asClient: "chat" } });
  expect(created.status()).toBe(201);
  const { handoff } = (await created.json()) as { handoff: { id: string } };
  expect((await request.post(`/api/handoffs/${handoff.id}/entries`, { data: { type: "question", content: "which way?", asClient: "code" } })).status()).toBe(201);
  const registered = await request.post("/api/agents", { data: { personaSlug: "builder", name: "E2E longest project", project } });
  expect(registered.status()).toBe(201);
  const agent = (await registered.json()) as { id: number };

  for (const address of [`/handoffs/${handoff.id}`, "/", "/?q=longest", `/agents/${agent.id}`, "/agents"]) {
    await page.goto(address);
    // The agents' pages show absolute times, which waitForHydration waits to see go.
    if (!address.startsWith("/agents")) await waitForHydration(page);
    await expect(page.locator("main").getByText(project).filter({ visible: true }).first()).toBeVisible();
    expect(await sidewaysScroll(page), address).toBe(0);
  }
});

test("long unbroken titles, text and code fit a 390 px thread page without sideways scrolling; Copy sits above the code", async ({ page, request }) => {
  await page.setViewportSize(PHONE);
  const content = [
    "W".repeat(300),
    `Inline \`${"c".repeat(200)}\` and a link https://example.com/${"p".repeat(200)}`,
    "```",
    "first line of code",
    "```",
  ].join("\n\n");
  for (const title of [`${"Unbroken".repeat(13)}Tail`, "A".repeat(200)]) {
    const id = await newThread(request, title, content);
    await page.goto(`/handoffs/${id}`);
    await waitForHydration(page);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(title);
    expect(await sidewaysScroll(page)).toBe(0);
    await sourceMenu(page).locator("summary").click();
    expect(await sidewaysScroll(page)).toBe(0);
  }
  const copy = await page.locator("li[data-seq]").getByRole("button", { name: "Copy", exact: true }).boundingBox();
  const code = await page.locator("li[data-seq] pre").boundingBox();
  expect(copy!.y + copy!.height).toBeLessThanOrEqual(code!.y);
});

test("Show earlier keeps focus so Enter loads page after page, says what came in, and hands focus to the entries once all are shown", async ({ page, request }) => {
  const id = await seedThread(request, "E2E thread page: show earlier by keyboard", THREAD_PAGE_SIZE * 3 + 10);
  await page.goto(`/handoffs/${id}`);
  const showEarlier = await whenHydrated(page.getByRole("button", { name: "Show earlier" }));
  const before = (await shownNumbers(page)).length;
  await showEarlier.focus();
  await page.keyboard.press("Enter");
  await expect.poll(async () => (await shownNumbers(page)).length).toBe(before + THREAD_PAGE_SIZE);
  await expect(page.getByRole("group", { name: "Folded entries" }).getByRole("status")).toHaveText(`${THREAD_PAGE_SIZE} earlier entries shown`);
  await expect(showEarlier).toBeFocused();
  await page.keyboard.press("Enter");
  await expect.poll(async () => (await shownNumbers(page)).length).toBe(before + 2 * THREAD_PAGE_SIZE);
  await expect(showEarlier).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(showEarlier).toHaveCount(0);
  // All shown: focus goes to the first entry the fold held (#2, after the opening #1), in the
  // effect after the button has gone (once read in between on a loaded machine: BODY).
  await expect.poll(() => focusedNumber(page)).toBe("2");
});

test("Show all lines of a folded code block moves focus to the code", async ({ page, request }) => {
  const lines = Array.from({ length: 40 }, (_, index) => `line ${index + 1}`).join("\n");
  const id = await newThread(request, "E2E thread page: folded code", `\`\`\`\n${lines}\n\`\`\``);
  await page.goto(`/handoffs/${id}`);
  const showAll = await whenHydrated(page.getByRole("button", { name: "Show all 40 lines" }));
  await showAll.focus();
  await page.keyboard.press("Enter");
  await expect(page.locator("li[data-seq] pre")).toBeFocused();
  await expect(page.locator("li[data-seq] pre")).not.toHaveAttribute("data-folded");
});

for (const size of [DESKTOP, PHONE]) {
  test(`the source menu closes on Escape (focus back on it), on a click and on focus elsewhere (${size.width} px)`, async ({ page, request }) => {
    await page.setViewportSize(size);
    const id = await newThread(request, "E2E thread page: source menu");
    await page.goto(`/handoffs/${id}`);
    const summary = await whenHydrated(sourceMenu(page).locator("summary"));
    await summary.click();
    await expect(sourceMenu(page)).toHaveAttribute("open");
    await page.keyboard.press("Escape");
    await expect(sourceMenu(page)).not.toHaveAttribute("open");
    await expect(summary).toBeFocused();

    await page.keyboard.press("Enter");
    await expect(sourceMenu(page)).toHaveAttribute("open");
    await page.getByRole("heading", { level: 1 }).click();
    await expect(sourceMenu(page)).not.toHaveAttribute("open");

    await summary.click();
    await page.getByRole("button", { name: "Mark read as chat" }).focus();
    await expect(sourceMenu(page)).not.toHaveAttribute("open");
    await page.getByRole("button", { name: "Mark read as chat" }).click({ timeout: 5_000 });

    // A click inside the menu leaves it open.
    await summary.click();
    await sourceMenu(page).getByText("Started in Baton.").click();
    await expect(sourceMenu(page)).toHaveAttribute("open");
  });
}

test("j after a deep link goes on from the linked entry", async ({ page, request }) => {
  const id = await seedThread(request, "E2E thread page: j from a deep link", 1600);
  for (const address of [`/handoffs/${id}?entry=1500`, `/handoffs/${id}?entry=1500#entry-1500`]) {
    await page.goto(address);
    await waitForHydration(page);
    await expect.poll(() => focusedNumber(page)).toBe("1500");
    await page.keyboard.press("j");
    await expect.poll(() => focusedNumber(page)).toBe("1501");
  }
});

test("a link naming a folded entry by #entry-N alone focuses that entry once the page loads from it", async ({ page, request }) => {
  const id = await seedThread(request, "E2E thread page: #entry-N to a folded entry", 1600);
  // Pasted into the address bar: the page loads again from #1200 (?entry=1200), which then has focus.
  await page.goto(`/handoffs/${id}#entry-1200`);
  await waitForHydration(page);
  await expect(page).toHaveURL(/\?entry=1200#entry-1200$/);
  await expect.poll(() => focusedNumber(page)).toBe("1200");
  await page.keyboard.press("j");
  await expect.poll(() => focusedNumber(page)).toBe("1201");

  // Followed within the page (an "answers #300" or a link in an entry): the same.
  await page.evaluate(() => (window.location.hash = "#entry-300"));
  await expect(page).toHaveURL(/\?entry=300#entry-300$/);
  await expect.poll(() => focusedNumber(page)).toBe("300");
  await page.keyboard.press("j");
  await expect.poll(() => focusedNumber(page)).toBe("301");
});
