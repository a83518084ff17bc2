import { expect, test } from "@playwright/test";

/**
 * A right-to-left override (U+202E) in a title or an entry reorders what follows it: a title
 * written "Invoice \u202efdp.exe" read "Invoice exe.pdf" everywhere the desk showed it. The desk
 * shows such marks as escapes (lib/validation.ts's visibleBidiControls), as refusal messages and
 * the consent page do, so the spoofing reads as what it is.
 */
const RLO = "\u202e";
const TITLE = `E2E bidi invoice ${RLO}fdp.exe`;
const SHOWN_TITLE = "E2E bidi invoice \\u202efdp.exe";

test("titles, entries, previews and the tab show a right-to-left override as an escape, not reordered text", async ({ page, request }) => {
  const created = await request.post("/api/handoffs", { data: { title: TITLE, content: `Pay it: ${RLO}gnp.tab`, asClient: "chat" } });
  expect(created.status()).toBe(201);
  const { handoff } = (await created.json()) as { handoff: { id: string } };
  expect((await request.post(`/api/handoffs/${handoff.id}/entries`, { data: { type: "question", content: `Run ${RLO}hs.llatsni?`, asClient: "code" } })).status()).toBe(201);

  await page.goto(`/handoffs/${handoff.id}`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(SHOWN_TITLE);
  // The tab leads with the attention count: "(1) E2E bidi invoice \u202efdp.exe · Baton".
  expect(await page.title()).toContain(`${SHOWN_TITLE} · Baton`);
  await expect(page.locator("li[data-seq]").first()).toContainText("Pay it: \\u202egnp.tab");
  await expect(page.locator("li[data-seq]").last()).toContainText("Run \\u202ehs.llatsni?");
  expect(await page.locator("main").innerText()).not.toContain(RLO);

  await page.goto("/");
  const row = page.locator(`[data-testid="attention-thread"][data-handoff-id="${handoff.id}"]`);
  await expect(row.getByRole("link").first()).toHaveText(SHOWN_TITLE);
  await expect(row.getByTestId("question-excerpt")).toHaveText("Run \\u202ehs.llatsni?");
  await expect(page.locator(`li[data-handoff-id="${handoff.id}"]`).getByRole("link").first()).toHaveText(SHOWN_TITLE);

  await page.goto("/?q=invoice");
  await expect(page.locator(`li[data-handoff-id="${handoff.id}"]`).getByRole("link").first()).toHaveText(SHOWN_TITLE);
  expect(await page.locator("main").innerText()).not.toContain(RLO);
});

test("an agent's name shows a right-to-left override as an escape on its page, in the list and in the palette", async ({ page, request }) => {
  const registered = await request.post("/api/agents", { data: { personaSlug: "builder", name: `E2E bidi ${RLO}tnega` } });
  expect(registered.status()).toBe(201);
  const agent = (await registered.json()) as { id: number; shortId: string };
  const shown = "E2E bidi \\u202etnega";

  await page.goto(`/agents/${agent.id}`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(shown);
  expect(await page.title()).toContain(`${shown} ${agent.shortId}`);
  expect(await page.locator("main").innerText()).not.toContain(RLO);

  await page.goto("/agents");
  await expect(page.getByRole("link", { name: shown })).toBeVisible();
  expect(await page.locator("main").innerText()).not.toContain(RLO);

  await page.keyboard.press("Control+k");
  await page.locator("#command-palette input").fill("E2E bidi");
  await expect(page.locator("#command-palette [role=option]").filter({ hasText: agent.shortId })).toContainText(shown);
});

test("a document previewed on /import shows overrides in its title and file names as escapes", async ({ page }) => {
  await page.goto("/import");
  await page.getByRole("button", { name: "handoff.json", exact: true }).click();
  const box = page.getByRole("textbox", { name: "Document" });
  await expect(page.getByTestId("detected-format")).toContainText("Detected handoff.json");
  const document = JSON.parse(await box.inputValue());
  document.current_story.title = `Priority ${RLO}fdp.exe`;
  document.work_in_progress.files_modified = [`src/invoice${RLO}st.exe`];
  await box.fill(JSON.stringify(document, null, 2));

  await expect(page.getByRole("heading", { name: /Priority \\u202efdp\.exe/ })).toBeVisible();
  await expect(page.getByTestId("source-metadata")).toContainText("src/invoice\\u202est.exe");
  expect(await page.locator("main").innerText()).not.toContain(RLO);
});

test("an imported bundle's file name, artifact refs and source thread show overrides as escapes on the thread page", async ({ page, request }) => {
  // Strings of another system's bundle, shown beside the thread: the file name and the refs were shown reordered.
  const bundle = {
    schema: "rip.handoff_context_bundle.v1",
    summary_markdown: "### E2E bidi bundle\n- carried over",
    refs: {
      threads: [{ thread_id: `thread-${RLO}fdp.exe`, seq: 7, message_id: null, note: "source cut" }],
      artifacts: [{ artifact_id: `artifact-${RLO}gnp.tab`, note: null }],
      files: [],
    },
  };
  const imported = await request.post("/api/import", { data: { text: JSON.stringify(bundle), fileName: `bundle-${RLO}nosj.exe` } });
  expect(imported.status()).toBe(201);
  const { handoff } = (await imported.json()) as { handoff: { id: string } };

  await page.goto(`/handoffs/${handoff.id}`);
  await expect(page.getByText("Continued from thread-\\u202efdp.exe at seq 7")).toBeVisible();
  await page.getByTestId("source-menu").locator("summary").click();
  await expect(page.getByTestId("provenance")).toContainText("bundle-\\u202enosj.exe");
  await expect(page.getByTestId("source-metadata")).toContainText("artifact-\\u202egnp.tab");
  expect(await page.locator("main").innerText()).not.toContain(RLO);
});

test("a zero-width character in a title shows as an escape: no look-alike twin of another title; a title of them alone is refused", async ({ page, request }) => {
  // "E2E look\u200balike deploy" read exactly as "E2E lookalike deploy"; a title of zero-width
  // spaces alone was a row with no title and a link 0 px wide, then a row of escapes.
  const create = async (title: string) => {
    const created = await request.post("/api/handoffs", { data: { title, content: "Ship it", asClient: "chat" } });
    expect(created.status()).toBe(201);
    return ((await created.json()) as { handoff: { id: string } }).handoff.id;
  };
  const genuine = await create("E2E lookalike deploy");
  const twin = await create("E2E look\u200balike deploy");
  const joined = await create("E2E lookalike \u{1F469}\u200d\u{1F4BB} deploy");
  const blank = await request.post("/api/handoffs", { data: { title: "\u200b\ufeff\u2060", content: "Ship it", asClient: "chat" } });
  expect(blank.status()).toBe(400);
  expect(((await blank.json()) as { error: { message: string } }).error.message).toContain("title must not be empty (characters that print nothing, such as U+200B, do not count)");

  await page.goto("/");
  const titleOf = (id: string) => page.locator(`li[data-handoff-id="${id}"]`).getByRole("link").first();
  await expect(titleOf(genuine)).toHaveText("E2E lookalike deploy");
  await expect(titleOf(twin)).toHaveText("E2E look\\u200balike deploy");
  // A joiner between two emoji is how the emoji is written: it stays.
  await expect(titleOf(joined)).toHaveText("E2E lookalike \u{1F469}\u200d\u{1F4BB} deploy");

  await page.goto(`/handoffs/${twin}`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("E2E look\\u200balike deploy");
  expect(await page.title()).toContain("E2E look\\u200balike deploy · Baton");
});
