import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { expect, test, type Page, type Route } from "@playwright/test";
import Database from "better-sqlite3";
import { waitForHydration } from "./hydration";
import { expectNoAxeViolations } from "./support/axe";
import { prepareDataDir, startAndWait, stopAndWait, whenHydrated, type ExtraServer } from "./support/extra-server";
import { scratchDir } from "./support/scratch";

/** Registers an agent through the form and returns its page URL path. */
/** Registers an agent (REST), opens its page and its End shift dialog: the agent and the dialog. */
async function openEndShift(page: Page, data: { personaSlug: string; project: string; name?: string }) {
  const registered = await page.request.post("/api/agents", { data });
  expect(registered.status()).toBe(201);
  const agent = (await registered.json()) as { id: number; shortId: string };
  await page.goto(`/agents/${agent.id}`);
  await waitForHydration(page);
  await page.getByRole("button", { name: "End shift…" }).click();
  return { agent, dialog: page.getByRole("dialog", { name: `End the shift of agent ${agent.shortId}` }) };
}

async function registerThroughForm(page: Page, persona: string, project = "e2e") {
  await page.goto("/");
  // On a phone the navigation's links are in its menu.
  const menu = page.getByRole("button", { name: "Menu" });
  if (await menu.isVisible()) await menu.click();
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Agents" }).click();
  await expect(page).toHaveURL(/\/agents$/);
  await page.getByRole("link", { name: "Register agent" }).click();
  // The list has a "Persona" filter too: wait for the form's page before filling its field.
  await expect(page).toHaveURL(/\/agents\/new$/);
  await page.getByLabel("Persona").fill(persona);
  await page.getByLabel("Project (optional)").fill(project);
  await page.getByRole("button", { name: "Register agent" }).click();
  await expect(page).toHaveURL(/\/agents\/\d+\?registered=1$/);
  await expect(page.getByText("Agent registered.")).toBeVisible();
  // Next swaps the document title after a client-side navigation, once the page's metadata streams in.
  // The tab names the agent (its name and short id), after the count of what needs the operator.
  await expect(page).toHaveTitle(new RegExp(`^(\\(\\d+\\) )?${persona} [0-9a-f]{8} · Baton$`));
  return new URL(page.url()).pathname;
}

const DOCUMENT_BODY = "We are moving the importer to **streaming**.\n\n<script>window.pwned = true</script>";

test("register, end a shift with a document, see the successor, record, document and prompt", async ({ page }) => {
  const agentPath = await registerThroughForm(page, "e2e-dev");
  const shortId = (await page.getByTestId("session-id").textContent())!.trim().slice(0, 8);

  // What an agent reports through the API shows up without a reload.
  await expect(page.getByText("context not reported")).toBeVisible();
  const reported = await page.request.patch(`/api/agents/${shortId}`, { data: { contextPercent: 88 } });
  expect(reported.status()).toBe(200);
  await expect(page.getByText("88% context")).toBeVisible();

  // The dialog starts from the template, refuses it untouched and keeps what was typed.
  await waitForHydration(page);
  await page.getByRole("button", { name: "End shift…" }).click();
  const dialog = page.getByRole("dialog", { name: `End the shift of agent ${shortId}` });
  await expect(dialog).toBeVisible();
  const editor = dialog.getByLabel("Shift document");
  await expect(editor).toHaveValue(/## Goal[\s\S]*## Done[\s\S]*## In progress[\s\S]*## Next steps[\s\S]*## Blockers[\s\S]*## Key files/);
  await expectNoAxeViolations(page);
  await dialog.getByLabel("Successor's tmux target (optional)").fill("work;kill-server");
  await dialog.getByRole("button", { name: "End shift and hand off" }).click();
  await expect(dialog.getByText(/document has only headings/)).toBeVisible();
  await expect(dialog.getByText(/tmux target "work;kill-server" is not valid/)).toBeVisible();
  await expect(dialog.getByLabel("Successor's tmux target (optional)")).toHaveValue("work;kill-server");

  const template = await editor.inputValue();
  await editor.fill(template.replace("## Goal\n", `## Goal\n${DOCUMENT_BODY}\n`));
  await dialog.getByLabel("Successor's tmux target (optional)").fill("");
  await dialog.getByRole("button", { name: "End shift and hand off" }).click();

  // The page now shows the successor in the chain and the record.
  await expect(page).toHaveURL(new RegExp(`${agentPath}\\?handedOff=1$`));
  await expect(page.getByText("Shift ended.")).toBeVisible();
  await expect(page.getByRole("button", { name: "End shift…" })).toHaveCount(0);
  const chain = page.getByRole("list", { name: "Agents in order, oldest first" });
  await expect(chain.locator("li")).toHaveCount(2);
  await expect(chain.locator("li").first()).toContainText("(this agent)");
  await expect(chain.locator("li").first()).toContainText("Handed off: Shift end");
  await expect(chain.locator("li").nth(1)).toContainText("Active");
  await expect(page.getByTestId("handoff-reason")).toContainText("shift_end");
  await expect(page.getByTestId("delivery")).toContainText("No tmux target");

  // The document is rendered as safe markdown: bold works, the script is inert text.
  const document = page.getByTestId("shift-document");
  await expect(document.locator("strong")).toHaveText("streaming");
  await expect(document).toContainText("<script>window.pwned = true</script>");
  expect(await page.evaluate(() => (window as unknown as { pwned?: boolean }).pwned)).toBeUndefined();

  // Copy the injection prompt.
  const prompt = (await page.getByTestId("injection-prompt").textContent())!.trim();
  // The successor can follow it wherever it runs: the absolute path, the MCP resource, the tool.
  const documentPath = `${process.env.BATON_DATA_DIR}/personas/e2e-dev/handoffs/`.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  expect(prompt).toMatch(new RegExp(`^Continuing from Agent ${shortId}\\. Read \`${documentPath}\\d{8}T\\d{6}-${shortId}-[0-9a-f]{8}\\.md\` to pick up context`));
  const [, agentId] = /baton:\/\/agents\/(\d+)\/handoff/.exec(prompt)!;
  expect(prompt).toContain(`get_shift_document with agent ${agentId})`);
  await page.getByRole("button", { name: "Copy prompt" }).click();
  await expect(page.getByRole("button", { name: "Copied" })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(prompt);

  // Open the document itself.
  const [documentPage] = await Promise.all([page.context().waitForEvent("page"), page.getByRole("link", { name: "Open document" }).click()]);
  await documentPage.waitForLoadState();
  expect(await documentPage.locator("body").textContent()).toContain("We are moving the importer to **streaming**.");
  await documentPage.close();
  await expectNoAxeViolations(page);

  // The successor's chain page shows its predecessor.
  await chain.locator("li").nth(1).getByRole("link").click();
  await expect(page).toHaveURL(/\/agents\/\d+$/);
  const successorChain = page.getByRole("list", { name: "Agents in order, oldest first" });
  await expect(successorChain.locator("li").first()).toContainText(shortId);
  await expect(successorChain.locator("li").first()).toContainText("Handed off: Shift end");
  await expect(successorChain.locator("li").nth(1)).toContainText("(this agent)");
  await expect(page.getByRole("button", { name: "End shift…" })).toBeVisible();
  await successorChain.locator("li").first().getByRole("link").click();
  await expect(page).toHaveURL(new RegExp(`${agentPath}$`));

  // The list shows both, with the chain length and the reason; filters live in the URL.
  // Listed by chain: the ended agent alone under status=ended; without the filter its active
  // successor leads the chain and it is folded under it.
  await page.goto("/agents?persona=e2e-dev&status=ended");
  await expect(page.locator("li[data-agent-id]")).toHaveCount(1);
  await expect(page.locator("li[data-agent-id]")).toContainText("Handed off: Shift end");
  await expect(page.locator("li[data-agent-id]")).toContainText("Chain: 2 agents");
  await expect(page.getByLabel("Status")).toHaveValue("ended");
  await page.getByLabel("Status").selectOption("");
  await expect(page).toHaveURL(/\/agents\?(?!.*status=ended)/);
  await expect(page.locator("li[data-agent-id]:not([data-predecessor])")).toHaveCount(1);
  await expect(page.locator("li[data-agent-id][data-predecessor]")).toHaveCount(1);
  await expect(page.locator("li[data-agent-id][data-predecessor]")).toContainText(shortId);
  await expectNoAxeViolations(page);
});

test("End shift starts from the project's last checkpoint in one click; its empty sections are not saved", async ({ page }) => {
  const checkpoint = [
    "goal: Stream the importer",
    "status: blocked",
    "now: Rewriting parse() as a generator",
    "hypothesis: The 40 MB bundles time out in JSON.parse",
    "outcome: Needs the decision on chunk size",
    "files:",
    "  - lib/formats/plan-import.ts",
    "branch: stream-import",
    "timestamp: 2026-11-27T08:15:00Z",
  ].join("\n");
  const imported = await page.request.post("/api/import", { data: { text: checkpoint, format: "handoff_yaml", project: "e2e-checkpoint" } });
  expect(imported.status()).toBe(201);
  await registerThroughForm(page, "e2e-checkpointer", "e2e-checkpoint");
  await waitForHydration(page);
  await page.getByRole("button", { name: "End shift…" }).click();
  const dialog = page.getByRole("dialog", { name: /End the shift of agent/ });
  await dialog.getByRole("button", { name: /Start from the last checkpoint \(Stream the importer, saved 2026-11-27 08:15\)/ }).click();
  const editor = dialog.getByLabel("Shift document");
  await expect(editor).toHaveValue(/## Goal\nStream the importer\n/);
  await expect(editor).toHaveValue(/## In progress\nRewriting parse\(\) as a generator\n\nHypothesis: The 40 MB bundles time out in JSON.parse\n/);
  await expect(editor).toHaveValue(/## Blockers\nNeeds the decision on chunk size\n/);
  await expect(editor).toHaveValue(/## Key files\n- `lib\/formats\/plan-import.ts`\n\nBranch: `stream-import`\n/);
  await dialog.getByRole("button", { name: "End shift and hand off" }).click();
  await expect(page.getByText("Shift ended.")).toBeVisible();
  const document = page.getByTestId("shift-document");
  await expect(document).toContainText("Stream the importer");
  await expect(document.getByRole("heading", { name: "Next steps" })).toHaveCount(0);
  await expect(document.getByRole("heading", { name: "Done" })).toHaveCount(0);
});

test("End shift names the agent whose shift it ends, by name beside its short id (which another agent's session id may share)", async ({ page }) => {
  const { agent, dialog } = await openEndShift(page, { personaSlug: "e2e-named", project: "e2e", name: "E2E night builder" });
  await expect(dialog.getByTestId("end-shift-target")).toHaveText(`E2E night builder ${agent.shortId}`);
});

test("End shift drops the template's empty sections but never touches a code block: a fenced template quoted in the document arrives whole", async ({ page }) => {
  const registered = await page.request.post("/api/agents", { data: { personaSlug: "e2e-fenced", project: "e2e" } });
  const agent = (await registered.json()) as { id: number; shortId: string };
  await page.goto(`/agents/${agent.id}`);
  await waitForHydration(page);
  await page.getByRole("button", { name: "End shift…" }).click();
  const dialog = page.getByRole("dialog", { name: `End the shift of agent ${agent.shortId}` });
  const quoted = "```md\n## Goal\n\n## Done\n```";
  const typed = `# Handoff\n\n## Goal\nKeep the issue template as it is:\n\n${quoted}\n\n## Done\n\n## Next steps\n- ship it\n`;
  await dialog.getByLabel("Shift document").fill(typed);
  await dialog.getByRole("button", { name: "End shift and hand off" }).click();
  await expect(page.getByText("Shift ended.")).toBeVisible();
  const stored = await (await page.request.get(`/api/agents/${agent.id}/document`)).text();
  expect(stored).toBe(`# Handoff\n\n## Goal\nKeep the issue template as it is:\n\n${quoted}\n\n## Next steps\n- ship it\n`);
});

test("End shift takes a document just under 256 KiB, whose form sends every line break as CRLF", async ({ page }) => {
  const registered = await page.request.post("/api/agents", { data: { personaSlug: "e2e-long-document", project: "e2e" } });
  const agent = (await registered.json()) as { id: number; shortId: string };
  const line = "- checked a file\n";
  const document = `## Done\n${line.repeat(Math.floor((256 * 1024 - 9) / line.length))}`;
  expect(Buffer.byteLength(document)).toBeLessThanOrEqual(256 * 1024);
  await page.goto(`/agents/${agent.id}`);
  await waitForHydration(page);
  await page.getByRole("button", { name: "End shift…" }).click();
  const dialog = page.getByRole("dialog", { name: `End the shift of agent ${agent.shortId}` });
  // Set at once: typing 15,000 lines through fill() takes longer than the test.
  await dialog.getByLabel("Shift document").evaluate((field, text) => ((field as HTMLTextAreaElement).value = text), document);
  await dialog.getByRole("button", { name: "End shift and hand off" }).click();
  await expect(page.getByText("Shift ended.")).toBeVisible();
  expect(await (await page.request.get(`/api/agents/${agent.id}/document`)).text()).toBe(document);
});

test("End shift refuses a document over 256 KiB before sending it, saying it is too large, and keeps it", async ({ page }) => {
  const registered = await page.request.post("/api/agents", { data: { personaSlug: "e2e-too-long-document", project: "e2e" } });
  const agent = (await registered.json()) as { id: number; shortId: string };
  // 1.1 MiB: over the document's 256 KiB and over the agent page's 1 MiB body limit (the guard's 413).
  const document = `## Done\n${"- checked a file, é\n".repeat(60_000)}`;
  expect(Buffer.byteLength(document)).toBeGreaterThan(1024 * 1024);
  await page.goto(`/agents/${agent.id}`);
  await waitForHydration(page);
  const posts: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "POST") posts.push(request.url());
  });
  await page.getByRole("button", { name: "End shift…" }).click();
  const dialog = page.getByRole("dialog", { name: `End the shift of agent ${agent.shortId}` });
  await dialog.getByLabel("Shift document").evaluate((field, text) => ((field as HTMLTextAreaElement).value = text), document);
  await dialog.getByRole("button", { name: "End shift and hand off" }).click();
  await expect(dialog.getByText(/^The document is too large: 1[.,]\d MiB of UTF-8; a shift document is at most 256 KiB\./)).toBeVisible();
  await expect(dialog.getByText(/did not answer/)).toHaveCount(0);
  await expect(dialog.getByLabel("Shift document")).toHaveValue(document);
  expect(posts).toEqual([]);
  expect(((await (await page.request.get(`/api/agents/${agent.id}`)).json()) as { status: string }).status).toBe("active");

  // Cut to size, it goes through.
  await dialog.getByLabel("Shift document").fill("## Done\n- checked a file\n");
  await dialog.getByRole("button", { name: "End shift and hand off" }).click();
  await expect(page.getByText("Shift ended.")).toBeVisible();
});

test("the shift document being written survives a reload and navigation, and is forgotten once the shift has ended", async ({ page }) => {
  const registered = await page.request.post("/api/agents", { data: { personaSlug: "e2e-shift-draft", project: "e2e" } });
  const agent = (await registered.json()) as { id: number; shortId: string };
  const openEditor = async () => {
    await waitForHydration(page);
    await page.getByRole("button", { name: "End shift…" }).click();
    return page.getByRole("dialog", { name: `End the shift of agent ${agent.shortId}` }).getByLabel("Shift document");
  };
  await page.goto(`/agents/${agent.id}`);
  const typed = "## Goal\nHalf an hour of notes, not sent yet.\n";
  await (await openEditor()).fill(typed);
  await page.reload();
  await expect(await openEditor()).toHaveValue(typed);
  await page.goto("/agents");
  await page.goto(`/agents/${agent.id}`);
  const editor = await openEditor();
  await expect(editor).toHaveValue(typed);
  await page.getByRole("button", { name: "End shift and hand off" }).click();
  await expect(page.getByText("Shift ended.")).toBeVisible();
  await expect(page.getByTestId("shift-document")).toContainText("Half an hour of notes, not sent yet.");
  await expect.poll(() => page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith("baton.draft.shift-document.")))).toEqual([]);
});

test("a second End shift (another tab) gets the conflict message", async ({ browser }) => {
  const context = await browser.newContext();
  const first = await context.newPage();
  const agentPath = await registerThroughForm(first, "e2e-double");
  const second = await context.newPage();
  await second.goto(agentPath);

  for (const page of [first, second]) {
    await waitForHydration(page);
    await page.getByRole("button", { name: "End shift…" }).click();
  }
  await first.getByLabel("Shift document").fill("## Goal\nFirst tab wins.\n");
  await first.getByRole("button", { name: "End shift and hand off" }).click();
  await expect(first.getByText("Shift ended.")).toBeVisible();

  await second.getByLabel("Shift document").fill("## Goal\nSecond tab loses.\n");
  await second.getByRole("button", { name: "End shift and hand off" }).click();
  await expect(second.getByRole("dialog").getByRole("alert")).toContainText(/has already handed off/);
  await expect(second.getByLabel("Shift document")).toHaveValue("## Goal\nSecond tab loses.\n");

  await second.goto(agentPath);
  await expect(second.getByTestId("shift-document")).toContainText("First tab wins.");
  await expect(second.getByRole("list", { name: "Agents in order, oldest first" }).locator("li")).toHaveCount(2);
  await context.close();
});

test("a document whose file is gone is still shown (from the database), unknown agents a not-found page, and pages fit 375 px", async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 800 });
  const agentPath = await registerThroughForm(page, "e2e-mobile");
  await expectNoAxeViolations(page);
  await waitForHydration(page);
  await page.getByRole("button", { name: "End shift…" }).click();
  await page.getByLabel("Shift document").fill("## Goal\nSmall screens.\n");
  await page.getByRole("button", { name: "End shift and hand off" }).click();
  await expect(page.getByText("Shift ended.")).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await expectNoAxeViolations(page);

  const absolute = (await page.getByTestId("injection-prompt").textContent())!.match(/`([^`]+)`/)![1];
  expect(path.isAbsolute(absolute)).toBe(true);
  fs.rmSync(absolute);
  await page.goto(agentPath);
  // The database keeps the document (every instance of a team server reads it there); only a row
  // older than that column depends on its file (tests/agents-records.test.ts).
  await expect(page.getByText("Small screens.")).toBeVisible();
  await expect(page.getByTestId("document-notice")).toHaveCount(0);
  await expect(page.getByTestId("injection-prompt")).toBeVisible();

  await page.goto("/agents/deadbeef");
  await expect(page.getByRole("heading", { name: "No such agent" })).toBeVisible();
  await page.goto("/agents/..%2F..%2Fetc");
  await expect(page.getByRole("heading", { name: "No such agent" })).toBeVisible();

  await page.goto("/agents");
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await expectNoAxeViolations(page);
  await page.goto("/agents/new");
  await page.getByLabel("Persona").fill("../etc");
  await page.getByLabel("tmux target (optional)").fill("work:1.0; rm -rf ~");
  await page.getByRole("button", { name: "Register agent" }).click();
  await expect(page.getByText(/persona "\.\.\/etc" is not a slug/)).toBeVisible();
  await expect(page.getByText(/tmux target "work:1.0; rm -rf ~" is not valid/)).toBeVisible();
  await expect(page.getByLabel("Persona")).toHaveValue("../etc");
  await expect(page).toHaveURL(/\/agents\/new$/);
  await expectNoAxeViolations(page);
});

test("End shift, Register and Retry answered 503 (the server away) keep what was typed, with no error page; sent again, they go through", async ({ page }) => {
  const registered = await page.request.post("/api/agents", { data: { personaSlug: "e2e-unanswered", project: "e2e" } });
  const agent = (await registered.json()) as { id: number; shortId: string };
  await page.goto(`/agents/${agent.id}`);
  await waitForHydration(page);
  // Every post answered 503 before any action runs (a proxy with no upstream).
  const away = (route: Route) => (route.request().method() === "POST" ? route.fulfill({ status: 503, contentType: "text/plain", body: "Service Unavailable" }) : route.fallback());
  await page.route("**/agents/**", away);
  await page.getByRole("button", { name: "End shift…" }).click();
  const dialog = page.getByRole("dialog", { name: `End the shift of agent ${agent.shortId}` });
  const document = "## Goal\nAn hour of notes the successor needs.\n";
  await dialog.getByLabel("Shift document").fill(document);
  await dialog.getByRole("button", { name: "End shift and hand off" }).click();
  await expect(dialog.getByRole("alert")).toContainText("Not sent: the server did not answer");
  await expect(dialog.getByLabel("Shift document")).toHaveValue(document);
  await page.unroute("**/agents/**", away);
  await dialog.getByRole("button", { name: "End shift and hand off" }).click();
  await expect(page.getByText("Shift ended.")).toBeVisible();
  await expect(page.getByTestId("shift-document")).toContainText("An hour of notes the successor needs.");

  await page.goto("/agents/new");
  await whenHydrated(page.getByRole("button", { name: "Register agent" }));
  await page.route("**/agents/new", away);
  await page.getByLabel("Persona").fill("e2e-unanswered-register");
  await page.getByRole("button", { name: "Register agent" }).click();
  await expect(page.getByText("Not sent: the server did not answer")).toBeVisible();
  await expect(page.getByLabel("Persona")).toHaveValue("e2e-unanswered-register");
  await page.unroute("**/agents/new", away);
  await page.getByRole("button", { name: "Register agent" }).click();
  await expect(page.getByText("Agent registered.")).toBeVisible();

  // Retry delivery of a prompt whose pane does not exist, with another pane typed in.
  const stalled = (await (await page.request.post("/api/agents", { data: { personaSlug: "e2e-unanswered-retry" } })).json()) as { id: number };
  const handedOff = await page.request.post(`/api/agents/${stalled.id}/handoff`, { data: { reason: "shift_end", document: "## Goal\nGo on.\n", successor: { tmuxTarget: "baton-e2e-missing:1.0" } } });
  expect(handedOff.status()).toBe(201);
  await page.goto(`/agents/${stalled.id}`);
  await waitForHydration(page);
  const retry = page.getByTestId("delivery-stalled");
  await page.route("**/agents/**", away);
  await retry.getByLabel("Pane (tmux target)").fill("baton-e2e-missing:2.0");
  await retry.getByRole("button", { name: "Retry delivery" }).click();
  await expect(retry.getByRole("alert")).toContainText("Not sent: the server did not answer");
  await expect(retry.getByLabel("Pane (tmux target)")).toHaveValue("baton-e2e-missing:2.0");
  await page.unroute("**/agents/**", away);
  await retry.getByRole("button", { name: "Retry delivery" }).click();
  await expect(retry.getByRole("alert")).toHaveText("");
  // Sent once more: the handoff's own attempt and this one, to the pane typed in (the unanswered post did nothing).
  await expect
    .poll(async () => ((await (await page.request.get(`/api/agents/${stalled.id}`)).json()) as { handoff: { deliveryAttempts: number } }).handoff.deliveryAttempts)
    .toBe(2);
  const chain = (await (await page.request.get(`/api/agents/${stalled.id}/chain`)).json()) as { successors: { tmuxTarget: string }[] };
  expect(chain.successors[0].tmuxTarget).toBe("baton-e2e-missing:2.0");
});

test("shortcut keys do nothing behind the End shift dialog: what was typed in it stays", async ({ page }) => {
  const { agent, dialog } = await openEndShift(page, { personaSlug: "keys-behind-a-dialog", project: "e2e" });
  await dialog.getByLabel("Shift document").fill("## Goal\nHalf a shift document, typed by hand.\n");
  // Tab on to the dialog's buttons, where keys are no longer typed into a field.
  await dialog.getByRole("button", { name: "End shift and hand off" }).focus();
  for (const key of ["c", "/", "g", "a", "j", "?"]) await page.keyboard.press(key);
  // Ctrl+K from the document itself (the palette's key works in fields): no palette over the dialog.
  await dialog.getByLabel("Shift document").press("Control+k");
  await expect(page).toHaveURL(new RegExp(`/agents/${agent.id}$`));
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel("Shift document")).toHaveValue("## Goal\nHalf a shift document, typed by hand.\n");
  await expect(page.getByRole("dialog", { name: "Keyboard shortcuts" })).toBeHidden();
  await expect(page.getByRole("dialog", { name: "Jump to" })).toBeHidden();
});

test.describe("Retry delivery with a real tmux", () => {
  const port = Number(process.env.BATON_E2E_PORT || 3100) + 81;
  const origin = `http://127.0.0.1:${port}`;
  // A private tmux server (tmux -L) for the successor's pane.
  const tmuxSocket = `baton-e2e-retry-${process.pid}`;
  const tmux = (...args: string[]) => execFileSync("tmux", ["-L", tmuxSocket, "-f", "/dev/null", ...args], { encoding: "utf8" });
  let server: ExtraServer | undefined;

  test.beforeAll(async () => {
    server = await startAndWait({ dataDir: prepareDataDir().dataDir, port, env: { BATON_TMUX_SOCKET: tmuxSocket } }, async () => (await fetch(`${origin}/api/health`)).ok, "the server with a tmux");
  });
  test.afterAll(async () => {
    if (server) await stopAndWait(server);
    try {
      const socketPath = tmux("display-message", "-p", "#{socket_path}").trim();
      tmux("kill-server");
      // tmux leaves its socket file behind.
      fs.rmSync(socketPath, { force: true });
    } catch {
      // Never started.
    }
  });

  test("Retry in two tabs at once types the prompt once; the other tab says a delivery is under way", async ({ browser }) => {
    const registered = await fetch(`${origin}/api/agents`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ personaSlug: "e2e-retry-twice" }) });
    const agent = (await registered.json()) as { id: number; shortId: string };
    // The successor's pane is not there yet: the first delivery fails.
    const handedOff = await fetch(`${origin}/api/agents/${agent.id}/handoff`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ reason: "shift_end", document: "## Goal\nOne prompt, once.\n", successor: { tmuxTarget: "work:0.0" } }),
    });
    expect(((await handedOff.json()) as { record: { deliveryState: string } }).record.deliveryState).toBe("failed");
    // Now it is, under Claude Code's process name: a Node script that shows a spinner while `busy`
    // exists (Baton waits for the pane to rest), then shows what is typed and, once entered, again.
    const agentBin = scratchDir("retry-agent-");
    const busy = path.join(agentBin, "busy");
    fs.writeFileSync(busy, "");
    fs.writeFileSync(
      path.join(agentBin, "agent.mjs"),
      `import fs from "node:fs";
let frame = 0;
const spin = setInterval(() => {
  if (fs.existsSync(${JSON.stringify(busy)})) return void process.stdout.write("\\r" + "|/-\\\\"[frame++ % 4] + " working");
  clearInterval(spin);
  process.stdout.write("\\r\\nready\\r\\n");
  process.stdin.pipe(process.stdout);
}, 100);
`,
    );
    fs.symlinkSync(process.execPath, path.join(agentBin, "claude"));
    tmux("new-session", "-d", "-s", "work", "-x", "250", "-y", "50", `${path.join(agentBin, "claude")} ${path.join(agentBin, "agent.mjs")}`);

    const context = await browser.newContext();
    const tabs = [await context.newPage(), await context.newPage()];
    for (const tab of tabs) {
      await tab.goto(`${origin}/agents/${agent.id}`);
      await whenHydrated(tab.getByRole("button", { name: "Retry delivery" }));
    }
    await Promise.all(tabs.map((tab) => tab.getByRole("button", { name: "Retry delivery" }).click()));
    // One delivery waits for the pane to rest; the other is refused meanwhile.
    await Promise.any(tabs.map((tab) => expect(tab.getByRole("alert").filter({ hasText: /prompt is being delivered already/ })).toBeVisible()));
    fs.rmSync(busy);
    await expect.poll(async () => ((await (await fetch(`${origin}/api/agents/${agent.id}`)).json()) as { handoff: { deliveryState: string } }).handoff.deliveryState).toBe("submitted");
    for (const tab of tabs) await expect(tab.getByRole("button", { name: "Retrying…" })).toHaveCount(0);
    // cat shows a line twice, as typed and as entered: delivered once, the prompt shows twice (not twice on one line, then again).
    const screen = tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", "=work:0.0");
    expect(screen.split(`Continuing from Agent ${agent.shortId}`).length - 1).toBe(2);
    await context.close();
  });

  test("a failed delivery whose successor has ended says not delivered, with no Retry, on every page (an open one too)", async ({ browser }) => {
    const post = async (route: string, body: unknown) =>
      fetch(`${origin}${route}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const agent = (await (await post("/api/agents", { personaSlug: "e2e-retry-ended" })).json()) as { id: number; shortId: string };
    // No pane "later:0.0" on the private tmux server: the delivery fails with tmux's reason.
    const handedOff = await post(`/api/agents/${agent.id}/handoff`, { reason: "shift_end", document: "## Goal\nGo on.\n", successor: { tmuxTarget: "later:0.0" } });
    const { record, successor } = (await handedOff.json()) as { record: { deliveryState: string }; successor: { id: number; shortId: string } };
    expect(record.deliveryState).toBe("failed");
    const context = await browser.newContext();
    const page = await context.newPage();
    // Opened while the successor is at work: flagged, with Retry.
    await page.goto(`${origin}/agents/${agent.id}`);
    await whenHydrated(page.getByRole("button", { name: "Retry delivery" }));
    await expect(page.getByTestId("delivery-stalled")).toBeVisible();

    // The successor was started by hand and has ended: the open page takes Retry away (Retry would be refused: its pane may run anything now).
    expect((await post(`/api/agents/${successor.id}/end`, {})).status).toBe(200);
    // tmux's reason follows: no such session, or no server yet when this test runs alone.
    const notDelivered = /^Not delivered; the successor has ended, so there is no one to deliver it to \(.*tmux.*\)\.$/;
    await expect(page.getByTestId("delivery-not-delivered")).toHaveText(notDelivered);
    await expect(page.getByRole("button", { name: "Retry delivery" })).toHaveCount(0);

    // Loaded afresh, the same; the chain, the successor's page and /agents say it too, none with Retry.
    await page.reload();
    await expect(page.getByTestId("delivery-not-delivered")).toHaveText(notDelivered);
    await expect(page.getByTestId("delivery-stalled")).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Retry delivery" })).toHaveCount(0);
    const nodes = page.getByRole("list", { name: "Agents in order, oldest first" }).locator("li");
    await expect(nodes.first()).toContainText("Prompt not delivered (its successor has ended)");
    await expect(nodes.nth(1)).toContainText("Prompt not delivered (ended since)");
    await expect(page.getByRole("list", { name: "Agents in order, oldest first" })).not.toContainText("Prompt did not arrive");

    await page.goto(`${origin}/agents/${successor.id}`);
    await expect(page.getByTestId("arrival-not-delivered")).toContainText(agent.shortId);
    await expect(page.getByTestId("arrival-not-delivered")).toContainText("Not delivered; the successor has ended");
    await expect(page.getByTestId("arrival-stalled")).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Retry delivery" })).toHaveCount(0);

    await page.goto(`${origin}/agents?persona=e2e-retry-ended`);
    const chain = page.locator(`li[data-agent-id="${successor.id}"]`);
    await expect(chain).toContainText("Prompt not delivered (ended since)");
    await expect(chain.locator(`li[data-agent-id="${agent.id}"]`)).toContainText("Prompt not delivered (its successor has ended)");
    await expect(chain).not.toContainText("Prompt did not arrive");
    await context.close();
  });
});

test("an agent's page in a chain of 10,000 shows the 20 nearest on each side and links to both ends", async ({ page }) => {
  test.setTimeout(180_000);
  const port = Number(process.env.BATON_E2E_PORT || 3100) + 82;
  const origin = `http://127.0.0.1:${port}`;
  const { dataDir } = prepareDataDir();
  const server = await startAndWait({ dataDir, port }, async () => (await fetch(`${origin}/api/health`)).ok, "the server of a long chain");
  try {
    // 10,000 agents, each continuing from the one before, written straight into the server's database.
    const length = 10_000;
    const database = new Database(path.join(dataDir, "baton.db"));
    const insertAgent = database.prepare("INSERT INTO agents (id, session_id, persona_slug, name, status, previous_agent_id, started_at) VALUES (?, ?, 'long-chain', ?, ?, ?, ?)");
    const insertRecord = database.prepare(
      "INSERT INTO handoff_records (agent_id, reason, file_path, document, injection_prompt, delivery, delivery_state, created_at) VALUES (?, 'context_limit', ?, '## Goal\nGo on.\n', 'Continuing.', 'no target', 'queued', ?)",
    );
    const start = Date.now() - length * 60_000;
    database.transaction(() => {
      for (let id = 1; id <= length; id++) {
        const at = new Date(start + id * 60_000).toISOString();
        insertAgent.run(id, randomUUID(), `shift ${id}`, id === length ? "active" : "ended", id === 1 ? null : id - 1, at);
        if (id < length) insertRecord.run(id, `personas/long-chain/handoffs/${id}.md`, at);
      }
    })();
    database.close();

    const html = await (await fetch(`${origin}/agents/5000`)).text();
    expect(html.length).toBeLessThan(1_000_000);
    await page.goto(`${origin}/agents/5000`);
    const chain = page.getByRole("list", { name: "Agents in order, oldest first" });
    await expect(chain.locator("li")).toHaveCount(41);
    await expect(chain.locator("li").first()).toContainText("shift 4980");
    await expect(chain.locator("li").nth(20)).toContainText("(this agent)");
    await expect(chain.locator("li").last()).toContainText("shift 5020");
    await expect(page.getByRole("heading", { name: "Continuity chain" })).toContainText("(10000 agents)");
    await expect(page.getByTestId("chain-earlier")).toContainText("4979 earlier agents not shown; the chain starts with shift 1");
    await expect(page.getByTestId("chain-later")).toContainText("4980 later agents not shown; the last is shift 10000");
    await page.getByTestId("chain-earlier").getByRole("link", { name: /shift 1\b/ }).click();
    await expect(page).toHaveURL(`${origin}/agents/1`);
    await expect(chain.locator("li").first()).toContainText("(this agent)");
    await expect(chain.locator("li")).toHaveCount(21);
    await expect(page.getByTestId("chain-earlier")).toHaveCount(0);

    // The list folds 20 predecessors under the latest and sends the rest to the earliest shown, whose page goes on.
    await page.goto(`${origin}/agents?persona=long-chain`);
    await page.getByText("20 earlier agents in this chain").click();
    await page.getByRole("link", { name: "the earliest shown" }).click();
    await expect(page).toHaveURL(`${origin}/agents/9980`);
    await expect(chain.locator("li").first()).toContainText("shift 9960");
  } finally {
    await stopAndWait(server);
  }
});

test("the command palette finds an agent among more than a page of them, by name or short id, asking the server for the few it matches", async ({ page }) => {
  const registered = await page.request.post("/api/agents", { data: { personaSlug: "e2e-palette", name: "Palette Wombat", project: "e2e" } });
  const agent = (await registered.json()) as { id: number; shortId: string };
  // More agents than a page holds, all newer: the palette used to filter the newest 200 in the browser.
  for (let index = 0; index < 60; index++) await page.request.post("/api/agents", { data: { personaSlug: "e2e-palette-crowd", name: `Crowd ${index}` } });
  const asked: string[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).pathname === "/api/agents") asked.push(new URL(request.url()).search);
  });
  await page.goto("/agents");
  await page.keyboard.press("ControlOrMeta+k");
  const palette = page.getByRole("combobox", { name: "Jump to a handoff, an agent or a page" });
  await expect(palette).toBeFocused();
  await palette.fill("wombat");
  await expect(page.getByTestId("palette-results").getByRole("option", { name: /Palette Wombat/ })).toBeVisible();
  await palette.fill(agent.shortId);
  await expect(page.getByTestId("palette-results").getByRole("option", { name: /Palette Wombat/ })).toBeVisible();
  await palette.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/agents/${agent.id}$`));
  expect(asked.length).toBeGreaterThan(0);
  for (const search of asked) expect(new URLSearchParams(search).get("perPage")).toBe("5");
});
