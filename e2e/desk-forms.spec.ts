import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { addEntry, api, createThread } from "../scripts/desk-demo";
import { EXAMPLE_DOCUMENTS } from "../lib/formats/examples";
import { FORMAT_LABELS } from "../lib/formats/types";
import { scratchDir } from "./support/scratch";

/** The home page, the navigation and the desk's forms, as an operator uses them with the keyboard. */
const baseURL = process.env.BATON_E2E_BASE_URL!;
const root = path.resolve(import.meta.dirname, "..");

/** The count every tab's title starts with, "(3) Agents · Baton"; 0 without one. */
async function titleCount(page: Page): Promise<number> {
  return Number((await page.title()).match(/^\((\d+)\) /)?.[1] ?? 0);
}

/** Waits until React has hydrated `locator`'s element (it then carries React's fiber). */
async function hydrated(locator: Locator) {
  await expect.poll(() => locator.evaluate((element) => Object.keys(element).some((key) => key.startsWith("__reactFiber")))).toBe(true);
}

/** A thread with a question from code, so it waits for chat: one more row in "Needs you now". */
async function waitingThread(title: string): Promise<string> {
  const id = await createThread(baseURL, title, "Context first.", "e2e-forms");
  await addEntry(baseURL, id, "question", `${title}: which one?`, "code");
  return id;
}

const focusedHandoff = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute("data-handoff-id") ?? document.activeElement?.id ?? document.activeElement?.tagName);

test("the attention count in the title and the navigation follows other processes on every page, over the tab's one stream", async ({ page }) => {
  const events: string[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).pathname === "/api/events") events.push(request.url());
  });
  const thread = await createThread(baseURL, "E2E forms: a thread page", "Context.", "e2e-forms");
  await page.goto("/");
  await expect(page.getByTestId("live-status")).toHaveAttribute("data-live-path", "stream");
  // Navigating within the tab keeps its one stream.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Import" }).click();
  await expect(page).toHaveURL(/\/import$/);
  await hydrated(page.getByRole("button", { name: "Import as a new handoff" }));

  const count = page.getByTestId("attention-count");
  const expectCount = async (expected: number) => {
    await expect.poll(() => titleCount(page), { timeout: 8_000 }).toBe(expected);
    if (expected === 0) await expect(count).toHaveCount(0);
    else await expect(count).toHaveText(new RegExp(`^${expected}\\b`));
  };
  const before = await titleCount(page);
  const asked = await waitingThread("E2E forms: asked while on /import");
  await expectCount(before + 1);
  await api(baseURL, "POST", `/api/handoffs/${asked}/read`, { asClient: "chat" });
  await expectCount(before);

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Agents" }).click();
  await expect(page).toHaveURL(/\/agents$/);
  const closing = await waitingThread("E2E forms: closed from the command line");
  await expectCount(before + 1);
  execFileSync(process.execPath, ["bin/baton.mjs", "close", closing], { cwd: root, env: process.env, stdio: "pipe" });
  await expectCount(before);

  await page.goto(`/handoffs/${thread}`);
  await expect(page.getByTestId("live-status")).toHaveAttribute("data-live-path", "stream");
  await addEntry(baseURL, thread, "question", "Asked on the page's own thread?", "code");
  await expectCount(before + 1);
  await expect(page).toHaveTitle(new RegExp(`^\\(${before + 1}\\) E2E forms: a thread page · Baton$`));
  // One stream for the first load (the client-side navigations reused it), one for the second.
  expect(events).toHaveLength(2);
});

test("a change elsewhere reads the count again, not the page: a thread page is not rendered again and a Not found tab does not reload", async ({ page }) => {
  const thread = await createThread(baseURL, "E2E forms: a page that stays", "Context.", "e2e-forms");
  const pageRenders: string[] = [];
  const countReads: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    // A server page rendered again (router.refresh) is fetched as RSC; a link's prefetch is not a render of this page.
    const headers = request.headers();
    if ((headers["rsc"] === "1" || url.searchParams.has("_rsc")) && headers["next-router-prefetch"] !== "1") pageRenders.push(request.url());
    if (url.pathname === "/api/attention") countReads.push(request.url());
  });
  let loads = 0;
  page.on("load", () => loads++);

  await page.goto(`/handoffs/${thread}`);
  await expect(page.getByTestId("live-status")).toHaveAttribute("data-live-path", "stream");
  await hydrated(page.getByRole("navigation", { name: "Main" }));
  const before = await titleCount(page);
  pageRenders.length = 0;
  const asked = await waitingThread("E2E forms: asked while a thread page is open");
  await expect.poll(() => titleCount(page), { timeout: 8_000 }).toBe(before + 1);
  // What the count reads, as a script reads it.
  const attention = await api<{ count: number; threads: { handoffId: string }[] }>(baseURL, "GET", "/api/attention");
  expect(attention.count).toBe(before + 1);
  expect(attention.threads.map((row) => row.handoffId)).toContain(asked);
  await expect(page.getByTestId("attention-count")).toHaveText(new RegExp(`^${before + 1}\\b`));
  await expect(page).toHaveTitle(new RegExp(`^\\(${before + 1}\\) E2E forms: a page that stays · Baton$`));
  expect(countReads.length).toBeGreaterThan(0);
  expect(pageRenders).toEqual([]);

  await page.goto("/handoffs/hof_NoSuchThreadAtAll0000");
  await expect(page.getByRole("heading", { name: "No such handoff" })).toBeVisible();
  await hydrated(page.getByRole("navigation", { name: "Main" }));
  await expect.poll(() => titleCount(page), { timeout: 8_000 }).toBe(before + 1);
  const loadsBefore = loads;
  pageRenders.length = 0;
  await waitingThread("E2E forms: asked while a Not found tab is open");
  await expect.poll(() => titleCount(page), { timeout: 8_000 }).toBe(before + 2);
  await expect(page).toHaveTitle(new RegExp(`^\\(${before + 2}\\) Handoff not found · Baton$`));
  // Wait past the couple of seconds a re-render or reload would have come within.
  await page.waitForTimeout(2_500);
  expect(loads).toBe(loadsBefore);
  expect(pageRenders).toEqual([]);
});

test("Done with e moves focus to the next row, then the previous one, so triage goes e, e, e", async ({ page }) => {
  // Four, so that two rows are left for the last check whichever tests ran before.
  await waitingThread("E2E forms: triage 1");
  const [oldest, middle, newest] = [await waitingThread("E2E forms: triage 2"), await waitingThread("E2E forms: triage 3"), await waitingThread("E2E forms: triage 4")];
  await page.goto("/");
  await expect(page.getByTestId("live-status")).toHaveAttribute("data-live-path", "stream");
  const row = (id: string) => page.locator(`li[data-testid="attention-thread"][data-handoff-id="${id}"]`);
  await hydrated(row(newest));
  await row(newest).focus();
  const before = await titleCount(page);
  await page.keyboard.press("e");
  await expect(row(newest)).toHaveCount(0);
  // Done writes no change another tab hears: the count follows the desk's own revalidation.
  await expect.poll(() => titleCount(page)).toBe(before - 1);
  await expect(page.getByTestId("attention-count")).toHaveText(new RegExp(`^${before - 1}\\b`));
  expect(await focusedHandoff(page)).toBe(middle);
  await page.keyboard.press("e");
  await expect(row(middle)).toHaveCount(0);
  expect(await focusedHandoff(page)).toBe(oldest);

  // The last row of the list: focus goes to the one before it.
  const rows = page.getByTestId("attention-thread");
  const last = rows.last();
  const lastId = await last.getAttribute("data-handoff-id");
  const beforeLast = await rows.nth((await rows.count()) - 2).getAttribute("data-handoff-id");
  await last.focus();
  await page.keyboard.press("e");
  await expect(row(lastId!)).toHaveCount(0);
  expect(await focusedHandoff(page)).toBe(beforeLast);
});

test("Done, Undo and Snooze in one tab reach another tab's title and badge when that tab is seen again", async ({ context, page }) => {
  const done = await waitingThread("E2E forms: marked in the other tab");
  const snoozed = await waitingThread("E2E forms: snoozed in the other tab");
  const thread = await createThread(baseURL, "E2E forms: the tab left open", "Context.", "e2e-forms");
  await page.goto(`/handoffs/${thread}`);
  await expect(page.getByTestId("live-status")).toHaveAttribute("data-live-path", "stream");
  await hydrated(page.getByRole("navigation", { name: "Main" }));
  const before = await titleCount(page);

  const desk = await context.newPage();
  await desk.goto("/");
  const row = (id: string) => desk.locator(`li[data-testid="attention-thread"][data-handoff-id="${id}"]`);
  await hydrated(row(done));
  // The operator comes back to the first tab: what the browser fires (at the document, bubbling) when a tab is shown again.
  const seeAgain = () => page.evaluate(() => document.dispatchEvent(new Event("visibilitychange", { bubbles: true })));
  const expectCount = async (expected: number) => {
    await expect.poll(() => titleCount(desk)).toBe(expected);
    await seeAgain();
    await expect.poll(() => titleCount(page)).toBe(expected);
    await expect(page.getByTestId("attention-count")).toHaveText(new RegExp(`^${expected}\\b`));
  };

  await row(done).getByRole("button", { name: "Done" }).click();
  await expectCount(before - 1);
  await desk.getByRole("button", { name: "Undo" }).click();
  await expectCount(before);
  await row(snoozed).getByText("Snooze", { exact: true }).click();
  await row(snoozed).getByRole("button", { name: "For an hour" }).click();
  await expectCount(before - 1);
  await expect(page).toHaveTitle(new RegExp(`^\\(${before - 1}\\) E2E forms: the tab left open · Baton$`));
});

test("a handoff titled like the count, \"(3) …\", keeps its own \"(3) \" in the tab's title after a client-side navigation", async ({ page }) => {
  await waitingThread("E2E forms: so that the count is not 0");
  await page.goto("/");
  await hydrated(page.getByRole("navigation", { name: "Main" }));
  await expect.poll(() => titleCount(page)).toBeGreaterThan(0);
  const count = await titleCount(page);
  const plain = await createThread(baseURL, "E2E forms: the same words", "Context.", "e2e-forms");
  // Titled as the plain thread's tab reads with the count in front.
  const prefixed = await createThread(baseURL, `(${count}) E2E forms: the same words`, "Context.", "e2e-forms");
  await page.goto(`/handoffs/${plain}`);
  await hydrated(page.getByRole("navigation", { name: "Main" }));
  await expect(page).toHaveTitle(`(${count}) E2E forms: the same words · Baton`);

  await page.keyboard.press("ControlOrMeta+k");
  const palette = page.getByRole("combobox", { name: "Jump to a handoff, an agent or a page" });
  await palette.fill(prefixed);
  await expect(page.getByTestId("palette-results").getByRole("option", { selected: true })).toHaveText(`Open ${prefixed}`);
  await palette.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/handoffs/${prefixed}$`));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`(${count}) E2E forms: the same words`);
  await expect(page).toHaveTitle(`(${count}) (${count}) E2E forms: the same words · Baton`);

  // The count changing keeps the thread's own title whole.
  await waitingThread("E2E forms: one more while the prefixed thread is open");
  await expect(page).toHaveTitle(`(${count + 1}) (${count}) E2E forms: the same words · Baton`);
});

test("holding e marks one row Done, not every row focus moves on to", async ({ page }) => {
  const [oldest, middle, newest] = [await waitingThread("E2E forms: held 1"), await waitingThread("E2E forms: held 2"), await waitingThread("E2E forms: held 3")];
  await page.goto("/");
  const row = (id: string) => page.locator(`li[data-testid="attention-thread"][data-handoff-id="${id}"]`);
  await hydrated(row(newest));
  await row(newest).focus();
  await page.keyboard.down("e");
  await expect(row(newest)).toHaveCount(0);
  expect(await focusedHandoff(page)).toBe(middle);
  // The key still held: the keyboard repeats it on the row that now has focus.
  await page.keyboard.down("e");
  await page.keyboard.down("e");
  await page.keyboard.up("e");
  await expect(page.getByRole("status").filter({ hasText: "off the list" })).toContainText("E2E forms: held 3");
  await expect(page.getByRole("button", { name: "Undo" })).toBeVisible();
  await page.reload();
  await hydrated(row(middle));
  await expect(row(oldest)).toBeVisible();
  await expect(row(newest)).toHaveCount(0);
});

test("Done on the last thread waiting keeps its Undo once the desk shows the list empty", async ({ page }) => {
  const last = await waitingThread("E2E forms: the last one waiting");
  await page.goto("/");
  const rows = page.getByTestId("attention-thread");
  await hydrated(rows.first());
  // Earlier tests' threads off the list first, so that this one is the last.
  for (let others = await rows.count(); others > 1; others--) {
    const other = page.locator(`li[data-testid="attention-thread"]:not([data-handoff-id="${last}"])`).first();
    await other.getByRole("button", { name: "Done" }).click();
    await expect(rows).toHaveCount(others - 1);
  }
  await page.reload();
  const heading = page.getByRole("heading", { level: 2, name: /^Needs you now/ });
  const headingBefore = await heading.textContent();
  const row = page.locator(`li[data-testid="attention-thread"][data-handoff-id="${last}"]`);
  await hydrated(row);
  await row.getByRole("button", { name: "Done" }).click();
  // The desk rendered again without it (its count changed): the Undo is still offered.
  await expect(heading).not.toHaveText(headingBefore!);
  await expect(page.getByRole("button", { name: "Undo" })).toBeVisible();
  await page.getByRole("button", { name: "Undo" }).click();
  await expect(page.getByRole("status").filter({ hasText: "is back in the list" })).toContainText("E2E forms: the last one waiting");
  await expect(row).toBeVisible();
});

test("a focused row read by another process hands focus to the row after it, so e goes on working", async ({ page }) => {
  const [oldest, middle, newest] = [await waitingThread("E2E forms: read elsewhere 1"), await waitingThread("E2E forms: read elsewhere 2"), await waitingThread("E2E forms: read elsewhere 3")];
  await page.goto("/");
  await expect(page.getByTestId("live-status")).toHaveAttribute("data-live-path", "stream");
  const row = (id: string) => page.locator(`li[data-testid="attention-thread"][data-handoff-id="${id}"]`);
  await hydrated(row(newest));
  await row(middle).focus();
  await api(baseURL, "POST", `/api/handoffs/${middle}/read`, { asClient: "chat" });
  await expect(row(middle)).toHaveCount(0);
  await expect.poll(() => focusedHandoff(page)).toBe(oldest);
  await page.keyboard.press("e");
  await expect(row(oldest)).toHaveCount(0);
  await expect(row(newest)).toBeVisible();
});

test("the Snooze menu closes on Escape (focus back on Snooze) and on a click outside", async ({ page }) => {
  const id = await waitingThread("E2E forms: snooze menu");
  await page.goto("/");
  const row = page.locator(`li[data-testid="attention-thread"][data-handoff-id="${id}"]`);
  await hydrated(row);
  const menu = row.locator("details");
  const snooze = row.getByText("Snooze", { exact: true });
  await snooze.click();
  await expect(row.getByRole("button", { name: "For an hour" })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(menu).not.toHaveAttribute("open");
  await expect(snooze).toBeFocused();
  await snooze.click();
  await expect(menu).toHaveAttribute("open");
  await page.getByRole("heading", { name: /Needs you now/ }).click();
  await expect(menu).not.toHaveAttribute("open");
  await expect(row.getByRole("button", { name: "For an hour" })).toBeHidden();
});

test("Open a handoff keeps the side and entry of a link to this desk, and keeps focus on the field it refuses", async ({ page }) => {
  const id = await waitingThread("E2E forms: opened from a link");
  await page.goto("/");
  const field = page.getByLabel("Handoff ID or link");
  await hydrated(field);
  await field.fill(`${baseURL}/handoffs/${id}?as=code#entry-2`);
  await field.press("Enter");
  await expect(page).toHaveURL(`${baseURL}/handoffs/${id}?as=code#entry-2`);

  await page.goto("/");
  await hydrated(field);
  await field.fill("garbage text");
  await field.press("Enter");
  await expect(field).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByText("That is not a handoff ID")).toBeVisible();
  await expect(field).toBeFocused();

  // Another origin is never followed: only the ID is taken from it.
  await field.fill(`https://elsewhere.example/handoffs/${id}?as=code`);
  await field.press("Enter");
  await expect(page).toHaveURL(`${baseURL}/handoffs/${id}`);
});

test("a form over the page's body limit is told it is too large (the guard's 413), not that the server did not answer, and keeps the text", async ({ page }) => {
  await page.goto("/handoffs/new");
  const submit = page.getByRole("button", { name: "Create handoff" });
  await hydrated(submit);
  await page.getByLabel("Title").fill("Too large for the page's body limit");
  // 200 KiB: over the 128 KiB a page's post may carry (lib/guard/body-limits.ts), so the guard answers 413 and the action never runs.
  const content = "x".repeat(200 * 1024);
  await page.getByLabel("First context").fill(content);
  await submit.click();
  await expect(page.getByText(/^Not sent: too large for the server \(the request body is \d+ bytes; the limit for \/handoffs\/new is 131072 bytes \(128 KiB\)\)/)).toBeVisible();
  await expect(page.getByText(/did not answer/)).toHaveCount(0);
  await expect(page.getByLabel("First context")).toHaveValue(content);
  await expect(page).toHaveURL(/\/handoffs\/new$/);
});

test("a refused form puts focus on its first invalid field: new handoff, new agent", async ({ page }) => {
  await page.goto("/handoffs/new");
  const submit = page.getByRole("button", { name: "Create handoff" });
  await hydrated(submit);
  await submit.click();
  await expect(page.getByLabel("Title")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByLabel("Title")).toBeFocused();

  await page.goto("/agents/new");
  const register = page.getByRole("button", { name: "Register agent" });
  await hydrated(register);
  await page.getByLabel("Persona").fill("Not A Slug");
  await page.getByLabel("Project (optional)").fill("Also Bad!");
  await register.click();
  await expect(page.getByLabel("Persona")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByLabel("Persona")).toBeFocused();
});

/** A text field marked the way the composer marks one: aria-invalid, a red border, its message, and focus. */
async function expectMarkedInvalid(field: Locator, message: RegExp) {
  await expect(field).toHaveAttribute("aria-invalid", "true");
  // Tailwind's red-500 (inputClass's aria-[invalid=true]:border-red-500) as Chromium computes it; slate-300 otherwise.
  await expect(field).toHaveCSS("border-top-color", /^lab\(55\.48/);
  await expect(field).toBeFocused();
  const describedBy = (await field.getAttribute("aria-describedby"))!.split(" ");
  const descriptions = await Promise.all(describedBy.map((id) => field.page().locator(`[id="${id}"]`).innerText()));
  expect(descriptions.join("\n")).toMatch(message);
}

test("tokens and webhooks highlight the fields they refuse, and webhooks keep the boxes ticked", async ({ page }) => {
  await page.goto("/settings/tokens");
  const create = page.getByRole("button", { name: "Create token" });
  await hydrated(create);
  await page.getByLabel("Name").fill("My Laptop Token!");
  await create.click();
  await expect(page.getByText("Please correct the highlighted fields.")).toBeVisible();
  await expectMarkedInvalid(page.getByLabel("Name"), /name/i);

  await page.goto("/settings/webhooks");
  const add = page.getByRole("button", { name: "Add webhook" });
  await hydrated(add);
  const url = page.getByLabel("URL");
  await url.fill("ftp://x");
  await page.getByRole("checkbox", { name: /question/ }).first().check();
  await add.click();
  await expect(page.getByText("Please correct the highlighted fields.")).toBeVisible();
  await expectMarkedInvalid(url, /http:\/\/ or https:\/\//);

  // Refused for its address: what was ticked stays ticked.
  await url.fill("http://169.254.169.254/latest");
  const question = page.getByRole("checkbox", { name: /question/ }).first();
  await expect(question).toBeChecked();
  await page.getByRole("checkbox", { name: "decision", exact: true }).check();
  await add.click();
  await expect(url).toHaveAttribute("aria-invalid", "true");
  await expect(url).toHaveValue("http://169.254.169.254/latest");
  await expect(question).toBeChecked();
  await expect(page.getByRole("checkbox", { name: "decision", exact: true })).toBeChecked();
  await expect(page.getByRole("checkbox", { checked: true })).toHaveCount(2);

  // No event chosen: the events are what is marked, and focus goes to the first.
  await url.fill("http://127.0.0.1:9/e2e-forms-hook");
  await question.uncheck();
  await add.click();
  const firstEvent = page.getByRole("group", { name: "Events" }).getByRole("checkbox").first();
  await expect(firstEvent).toHaveAttribute("aria-invalid", "true");
  await expect(firstEvent).toBeFocused();
  await expect(url).not.toHaveAttribute("aria-invalid");
  await expect(page.getByRole("checkbox", { name: "decision", exact: true })).toBeChecked();

  // A type ticked with no entry.created among the events: refused beside the types (it was stored without them).
  await question.check();
  await add.click();
  const types = page.getByRole("group", { name: /entry\.created only for these types/ });
  await expect(types.getByRole("checkbox").first()).toHaveAttribute("aria-invalid", "true");
  await expect(types.getByRole("checkbox").first()).toBeFocused();
  await expect(types).toContainText("types only narrow entry.created, which events does not include");
  await expect(page.getByTestId("webhook").filter({ hasText: "e2e-forms-hook" })).toHaveCount(0);
});

test("Try an example asks before replacing a document of your own", async ({ page }) => {
  await page.goto("/import");
  const document = page.getByRole("textbox", { name: "Document" });
  const example = page.getByRole("button", { name: FORMAT_LABELS.handoff_json, exact: true });
  await hydrated(example);
  await example.click();
  // Empty before: no question.
  await expect(document).toHaveValue(EXAMPLE_DOCUMENTS.handoff_json.text);
  // One example for another: no question either.
  await page.getByRole("button", { name: FORMAT_LABELS.handoff_yaml, exact: true }).click();
  await expect(document).toHaveValue(EXAMPLE_DOCUMENTS.handoff_yaml.text);

  await document.fill("# My own notes\nPasted from somewhere I cannot find again.");
  await example.click();
  const dialog = page.getByRole("dialog", { name: "Replace your document?" });
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: "Keep my document" }).click();
  await expect(dialog).toBeHidden();
  await expect(document).toHaveValue("# My own notes\nPasted from somewhere I cannot find again.");
  await example.click();
  await page.keyboard.press("Escape");
  await expect(document).toHaveValue("# My own notes\nPasted from somewhere I cannot find again.");
  await example.click();
  await dialog.getByRole("button", { name: "Replace with the example" }).click();
  await expect(document).toHaveValue(EXAMPLE_DOCUMENTS.handoff_json.text);
});

test("the desk's staleness, 404 pages' tab titles, the open desk's sign-in and /agents' filters say what is true", async ({ page }) => {
  // A handoff written in a repository that has moved on since.
  const repo = scratchDir("desk-forms-repo-");
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=E2E", "-c", "user.email=e2e@example.com", ...args], { cwd: repo, stdio: "ignore" });
  git("init", "-q", "-b", "main");
  fs.writeFileSync(path.join(repo, "a.ts"), "export const a = 1;\n");
  git("add", ".");
  git("commit", "-q", "-m", "First");
  const stale = await createThread(baseURL, "E2E forms: behind its repository", "Change a.ts.", "e2e-forms", { repoPath: repo });
  fs.writeFileSync(path.join(repo, "a.ts"), "export const a = 2;\n");
  git("commit", "-q", "-am", "Second");
  await page.goto("/");
  const staleItem = page.getByTestId("attention-stale").locator("li").filter({ hasText: "E2E forms: behind its repository" });
  await expect(staleItem).toContainText("1 commit");
  await expect(staleItem).not.toContainText("entries below");
  await expect(staleItem).toContainText("Check the code before acting on the thread's entries.");
  await expect(staleItem.getByRole("link")).toHaveAttribute("href", `/handoffs/${stale}`);

  for (const [address, title] of [
    ["/no-such-page", "Not found"],
    ["/handoffs/hof_AAAAAAAAAAAAAAAAAAAAA", "Handoff not found"],
    ["/agents/999999", "Agent not found"],
    ["/settings/nothing", "Not found"],
  ]) {
    const response = await page.goto(address);
    expect(response?.status(), address).toBe(404);
    await expect(page, address).toHaveTitle(new RegExp(`^(\\(\\d+\\) )?${title} · Baton$`));
  }

  await page.goto("/sign-in");
  await expect(page.getByText("This desk is open on this machine")).toBeVisible();
  await expect(page.getByText("This Baton needs a token")).toHaveCount(0);

  await page.goto("/agents");
  const status = page.getByLabel("Status");
  await hydrated(status);
  await expect(page.getByRole("button", { name: "Apply" })).toBeHidden();
  await status.selectOption("ended");
  await expect(page).toHaveURL(/\/agents\?status=ended(&|$)/);
});
