import fs from "node:fs";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { waitForHydration } from "./hydration";
import { whenHydrated } from "./support/extra-server";
import { expectNoAxeViolations } from "./support/axe";

async function nativeThread(request: APIRequestContext, title: string): Promise<string> {
  const created = await request.post("/api/handoffs", { data: { title, content: "We decided on **JWT** with refresh tokens.", project: "e2e" } });
  expect(created.status()).toBe(201);
  const id = (await created.json()).handoff.id as string;
  for (const [type, content, asClient] of [
    ["task", "Add the refresh endpoint in `src/auth.ts`", "chat"],
    ["question", "7d or 30d for refresh tokens?", "code"],
    ["decision", "30 days, plus remember-me.", "chat"],
  ]) {
    expect((await request.post(`/api/handoffs/${id}/entries`, { data: { type, content, asClient } })).status()).toBe(201);
  }
  return id;
}

const documentBox = (page: Page) => page.getByRole("textbox", { name: "Document" });
const preview = (page: Page) => page.getByRole("region", { name: /.+/ }).filter({ has: page.getByTestId("detected-format") });

test("imports each format through /import with a preview first, and shows every error by path before storing", async ({ page }) => {
  await page.goto("/import");
  await expectNoAxeViolations(page);

  // handoff.json: the seed example previews as a thread, then a broken copy lists its errors.
  await page.getByRole("button", { name: "handoff.json", exact: true }).click();
  await expect(page.getByTestId("detected-format")).toContainText("Detected handoff.json");
  await expect(page.getByRole("heading", { name: "US-042: Edit task priority from the task card" })).toBeVisible();
  await expect(page.getByRole("list", { name: "Entries to be created" }).locator(":scope > li")).toHaveCount(6);
  const good = await documentBox(page).inputValue();
  const broken = JSON.parse(good);
  broken.current_story.progress_percent = 140;
  delete broken.handoff_instruction;
  await documentBox(page).fill(JSON.stringify(broken, null, 2));
  const errors = page.getByTestId("field-errors");
  await expect(errors).toContainText("current_story.progress_percent: must be 0–100");
  await expect(errors).toContainText("handoff_instruction: is required");
  await expect(page.getByRole("button", { name: "Import as a new handoff" })).toBeDisabled();
  await expectNoAxeViolations(page);

  await documentBox(page).fill("{ not json");
  await expect(errors).toContainText("(document): invalid JSON");

  await documentBox(page).fill(good);
  await expect(page.getByTestId("detected-format")).toContainText("handoff.json");
  await page.getByRole("button", { name: "Import as a new handoff" }).click();
  await expect(page).toHaveURL(/\/handoffs\/hof_[A-Za-z0-9_-]{21}$/);
  await expect(page.getByTestId("provenance")).toContainText("Imported from handoff.json");
  await expect(page.getByTestId("source-metadata")).toContainText("src/components/TaskEdit.tsx");
  await expect(page.locator("li[data-seq]")).toHaveCount(6);
  await expectNoAxeViolations(page);

  // handoff.yaml from a chosen file, with its quality warnings carried onto the thread page.
  await page.goto("/import");
  // A file chosen before React attaches the input's handler is dropped unread.
  await (await whenHydrated(page.getByLabel("Or choose a file"))).setInputFiles({
    name: "handoff.yaml",
    mimeType: "application/yaml",
    buffer: Buffer.from("goal: Ship auth\nstatus: blocked\nnow: Working on project\nbranch: fix/jwt-expiry\n"),
  });
  await expect(page.getByTestId("detected-format")).toContainText("Detected handoff.yaml");
  await expect(page.getByTestId("quality-warnings")).toContainText("is vague");
  await page.getByRole("button", { name: "Import as a new handoff" }).click();
  await expect(page).toHaveURL(/\/handoffs\/hof_/);
  const yamlId = new URL(page.url()).pathname.split("/").at(-1)!;
  await expect(page.getByTestId("provenance")).toContainText("handoff.yaml");
  await expect(page.getByTestId("source-metadata")).toContainText("fix/jwt-expiry");
  await expect(page.getByTestId("quality-warnings").locator("li")).toHaveCount(2);

  // The rip bundle: an unknown schema is named; the seed's bundle previews as a child of another system's thread.
  await page.goto("/import");
  await page.getByRole("button", { name: "rip context bundle" }).click();
  await expect(page.getByTestId("detected-format")).toContainText("rip context bundle");
  await expect(preview(page)).toContainText("not a thread of this Baton");
  const bundle = JSON.parse(await documentBox(page).inputValue());
  await documentBox(page).fill(JSON.stringify({ ...bundle, schema: "rip.handoff_context_bundle.v9" }));
  await expect(errors).toContainText('schema: unknown schema "rip.handoff_context_bundle.v9"');
  await documentBox(page).fill(JSON.stringify(bundle));
  await page.getByRole("button", { name: "Import as a new handoff" }).click();
  await expect(page).toHaveURL(/\/handoffs\/hof_/);
  await expect(page.getByText("11111111-1111-1111-1111-111111111111")).toBeVisible();

  // The history shows the source badge and filters by it.
  // Other specs on this server import handoff.yaml too: every row the filter keeps has the badge, and this one is among them.
  await page.goto("/?source=handoff_yaml");
  const rows = page.locator("li[data-handoff-id]");
  await expect(page.locator(`li[data-handoff-id="${yamlId}"]`)).toHaveCount(1);
  for (const row of await rows.all()) await expect(row).toContainText("handoff.yaml");
});

test("exports a thread as a bundle and re-imports it as a child linked both ways", async ({ page, request }) => {
  // Another thread first, so the parent's seqs are not its entries' numbers.
  await nativeThread(request, "E2E: a thread before the parent");
  const parentId = await nativeThread(request, "E2E: parent thread");
  await page.goto(`/handoffs/${parentId}`);

  // Downloads in each format, from the source and export menu beside the title.
  await page.getByText("Source & export").click();
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download handoff.json" }).click()]);
  const json = JSON.parse(fs.readFileSync((await download.path())!, "utf8"));
  expect(json.current_story).toMatchObject({ id: parentId, title: "E2E: parent thread" });
  expect(json.handoff_instruction).toBe("30 days, plus remember-me.");

  await page.getByRole("button", { name: "Keep as bundle" }).click();
  const artifactId = (await page.getByTestId("exported-artifact-id").textContent())!.trim();
  expect(artifactId).toMatch(/^[0-9a-f]{64}$/);
  // The same cut again gives the same id.
  await page.getByRole("button", { name: "Keep as bundle" }).click();
  await expect(page.getByText(/Bundle kept, cut at entry #\d+/)).toBeVisible();
  await expect(page.getByTestId("exported-artifact-id")).toHaveText(artifactId);
  await expect(page.getByTestId("source-menu")).toContainText("1 exported bundle");
  await expect(page.getByTestId("source-menu")).toContainText(`${artifactId} cut at #4,`);
  await expectNoAxeViolations(page);

  await page.goto("/import");
  await page.getByLabel("Or a stored bundle's artifact ID").fill(artifactId);
  await expect(page.getByTestId("detected-format")).toContainText("rip context bundle");
  await expect(preview(page)).toContainText("“E2E: parent thread” in this Baton");
  // The cut is named by the entry's number in the parent, as everywhere (seqs are global).
  await expect(preview(page)).toContainText("cut at #4 (");
  await page.getByRole("button", { name: "Import as a new handoff" }).click();
  await expect(page).toHaveURL(/\/handoffs\/hof_/);
  const childId = (await page.getByTestId("handoff-id").textContent())!.trim();
  expect(childId).not.toBe(parentId);
  await expect(page.getByTestId("parent-link")).toContainText("Continued from E2E: parent thread (cut at #4).");
  await expect(page.locator("li[data-seq]")).toHaveCount(1);
  await expect(page.locator("li[data-seq]")).toContainText("Latest decision");
  await expectNoAxeViolations(page);

  await page.getByTestId("parent-link").getByRole("link").click();
  await expect(page).toHaveURL(new RegExp(`/handoffs/${parentId}$`));
  await expect(page.getByTestId("child-links").getByRole("link")).toHaveAttribute("href", `/handoffs/${childId}`);

  // A bundle naming the parent at a cut it never had (here the child's own entry) is refused before anything is stored.
  const childSeq = await page.goto(`/handoffs/${childId}`).then(() => page.locator("li[data-seq]").first().getAttribute("data-seq"));
  const forged = { schema: "rip.handoff_context_bundle.v1", summary_markdown: "# Forged", refs: { threads: [{ thread_id: parentId, seq: Number(childSeq), note: "source cut" }], artifacts: [], files: [] } };
  await page.goto("/import");
  await documentBox(page).fill(JSON.stringify(forged));
  await expect(page.getByTestId("field-errors")).toContainText(`refs.threads[0].seq: handoff ${parentId} has no entry with seq ${childSeq}`);
  await expect(page.getByRole("button", { name: "Import as a new handoff" })).toBeDisabled();
});

test("closes with “keep a context bundle” and opens the kept bundle from the completed handoff", async ({ page, request }) => {
  const id = await nativeThread(request, "E2E: closing keeps a bundle");
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto(`/handoffs/${id}`);
  await waitForHydration(page);
  await page.getByRole("button", { name: "Close handoff…" }).click();
  const dialog = page.getByRole("dialog", { name: "Close this handoff?" });
  await expect(dialog.getByRole("checkbox", { name: /Keep a context bundle/ })).toBeChecked();
  await dialog.getByRole("button", { name: "Close and delete entries" }).click();
  await expect(page.getByText("This handoff is completed.")).toBeVisible();
  const kept = page.getByTestId("kept-bundle");
  await expect(kept).toBeVisible();
  await expect(page.locator("li[data-seq]")).toHaveCount(0);
  await expectNoAxeViolations(page);

  // The kept bundle reads as text on the page (e2e/desk.spec.ts); its raw JSON is one link away.
  await kept.getByRole("link", { name: "Raw JSON" }).click();
  await expect(page).toHaveURL(/\/api\/artifacts\/[0-9a-f]{64}$/);
  const bundle = JSON.parse((await page.locator("body").textContent())!);
  expect(bundle.schema).toBe("rip.handoff_context_bundle.v1");
  expect(bundle.refs.threads[0]).toMatchObject({ thread_id: id, note: "source cut" });
  expect(bundle.summary_markdown).toContain("7d or 30d for refresh tokens?");

  // From the kept bundle the work can go on in a child thread.
  await page.goto(`/handoffs/${id}`);
  await page.getByRole("button", { name: "Continue in a new thread" }).click();
  await expect(page.getByTestId("parent-link")).toContainText("Continued from E2E: closing keeps a bundle");
});

test("closing without the bundle just wipes, and the import page works at 375 px", async ({ page, request }) => {
  const id = await nativeThread(request, "E2E: closing without a bundle");
  await page.goto(`/handoffs/${id}`);
  await waitForHydration(page);
  await page.getByRole("button", { name: "Close handoff…" }).click();
  const dialog = page.getByRole("dialog", { name: "Close this handoff?" });
  await dialog.getByRole("checkbox", { name: /Keep a context bundle/ }).uncheck();
  await dialog.getByRole("button", { name: "Close and delete entries" }).click();
  await expect(page.getByText("This handoff is completed.")).toBeVisible();
  await expect(page.getByTestId("kept-bundle")).toHaveCount(0);

  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto("/import");
  // A file dropped on the document box is read and previewed.
  const dropped = await page.evaluateHandle(() => {
    const transfer = new DataTransfer();
    transfer.items.add(new File(["goal: Dropped goal\nstatus: in_progress\nnow: Fix expiry in auth.py\nfiles: [src/auth.py]\n"], "handoff.yaml"));
    return transfer;
  });
  await page.getByTestId("drop-zone").dispatchEvent("drop", { dataTransfer: dropped });
  await expect(documentBox(page)).toHaveValue(/Dropped goal/);
  await expect(page.getByRole("heading", { name: "Dropped goal" })).toBeVisible();
  await expect(page.getByText("Loaded handoff.yaml")).toBeVisible();
  await page.getByRole("button", { name: "handoff.yaml", exact: true }).click();
  await expect(page.getByTestId("detected-format")).toContainText("handoff.yaml");
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await expectNoAxeViolations(page);
});

test("a chosen file that is not UTF-8 is refused by name, never loaded with its letters replaced", async ({ page }) => {
  await page.goto("/import");
  // Latin-1: read as text, each accented letter became U+FFFD, and the document imported so.
  const latin1 = Buffer.from('goal: "Impl\u00e9ment JWT auth"\nstatus: in_progress\nnow: "Debugging token expiry in auth.py"\ntimestamp: 2026-01-17T10:30:00Z\n', "latin1");
  const chooser = await whenHydrated(page.getByLabel("Or choose a file"));
  await chooser.setInputFiles({ name: "handoff.yaml", mimeType: "application/yaml", buffer: latin1 });
  await expect(page.getByText("handoff.yaml is not UTF-8 text (Latin-1 or UTF-16?); save it as UTF-8 and choose it again")).toBeVisible();
  await expect(chooser).toHaveAttribute("aria-invalid", "true");
  await expect(documentBox(page)).toHaveValue("");
  await expect(page.getByRole("button", { name: "Import as a new handoff" })).toBeDisabled();
  // The same file saved as UTF-8 loads, and the error goes.
  await chooser.setInputFiles({ name: "handoff.yaml", mimeType: "application/yaml", buffer: Buffer.from(latin1.toString("latin1"), "utf8") });
  await expect(page.getByRole("heading", { name: "Implément JWT auth" })).toBeVisible();
  await expect(page.getByText("is not UTF-8 text")).toHaveCount(0);
  await expect(chooser).toHaveAttribute("aria-invalid", "false");
});

test("a document just under the import's 1 MiB imports from the page", async ({ page }) => {
  const header = 'goal: "Import a file near the limit"\nstatus: in_progress\nnow: "Checking the page takes it"\ntimestamp: 2026-01-17T10:30:00Z\n';
  // Quotes and tabs, which the page's requests escape: the preview's and the import's bodies pass 1 MiB.
  const comment = '# a "quoted" note\twith a tab\n';
  const document = header + comment.repeat(Math.floor((1024 * 1024 - header.length - 1) / comment.length));
  expect(Buffer.byteLength(document)).toBeLessThan(1024 * 1024);
  await page.goto("/import");
  await (await whenHydrated(page.getByLabel("Or choose a file"))).setInputFiles({ name: "handoff.yaml", mimeType: "application/yaml", buffer: Buffer.from(document) });
  await expect(page.getByRole("heading", { name: "Import a file near the limit" })).toBeVisible();
  await page.getByRole("button", { name: "Import as a new handoff" }).click();
  await expect(page).toHaveURL(/\/handoffs\/hof_[A-Za-z0-9_-]{21}$/);
  await expect(page.getByTestId("provenance")).toContainText("Imported from handoff.yaml");
});

test("a document past 2 MiB is refused by the preview for its size, as the import refuses it", async ({ page }) => {
  test.setTimeout(120_000);
  // 2.1 MiB: the preview's action had a 2 MiB limit of its own and answered "is too large or
  // malformed" where the import, like every door, says the formats' 1 MiB.
  const header = 'goal: "Too large"\nstatus: in_progress\nnow: "Checking the refusal"\n';
  const document = header + "# padding line\n".repeat(Math.ceil((2.1 * 1024 * 1024) / 15));
  await page.goto("/import");
  await (await whenHydrated(page.getByLabel("Or choose a file"))).setInputFiles({ name: "handoff.yaml", mimeType: "application/yaml", buffer: Buffer.from(document) });
  const errors = page.getByTestId("field-errors");
  // Loading 2 MiB into the box and sending it to the preview takes a while in a busy browser.
  await expect(errors).toContainText("(document): must be at most 1 MiB", { timeout: 60_000 });
  await expect(errors).not.toContainText("too large or malformed");
  await expect(page.getByRole("button", { name: "Import as a new handoff" })).toBeDisabled();
});

test("an export is cut at entry #N with cutAtEntry (cut stays a seq); #N given as cut is refused saying which to give", async ({ request }) => {
  // Another thread written in between: entry #3 of this one has another seq than 3.
  const created = await request.post("/api/handoffs", { data: { title: "Cut where people see it", content: "We decided on JWT.", project: "e2e" } });
  const id = (await created.json()).handoff.id as string;
  await nativeThread(request, "Written in between");
  for (const [type, content, asClient] of [
    ["task", "Add the refresh endpoint", "chat"],
    ["question", "7d or 30d for refresh tokens?", "code"],
    ["decision", "30 days.", "chat"],
    ["progress", "Refresh endpoint merged.", "code"],
  ]) {
    expect((await request.post(`/api/handoffs/${id}/entries`, { data: { type, content, asClient } })).status()).toBe(201);
  }
  const third = ((await (await request.get(`/api/handoffs/${id}`)).json()) as { entries: { number: number; seq: number }[] }).entries.find((entry) => entry.number === 3)!;
  expect(third.seq).not.toBe(3);

  const byNumber = await request.get(`/handoffs/${id}/export?format=bundle&cutAtEntry=3`);
  expect(byNumber.status()).toBe(200);
  const bundle = (await byNumber.json()) as { summary_markdown: string; refs: { threads: { seq: number }[] } };
  expect(bundle.refs.threads[0].seq).toBe(third.seq);
  expect(bundle.summary_markdown).toContain("7d or 30d for refresh tokens?");
  expect(bundle.summary_markdown).not.toContain("Refresh endpoint merged.");
  // The same cut named by its seq: the same bytes.
  expect(await (await request.get(`/handoffs/${id}/export?format=bundle&cut=${third.seq}`)).text()).toBe(await byNumber.text());

  const numberAsSeq = await request.get(`/handoffs/${id}/export?format=bundle&cut=${encodeURIComponent("#3")}`);
  expect(numberAsSeq.status()).toBe(400);
  expect((await numberAsSeq.json()).error.message).toBe("cut is an entry's seq, not its #number; for entry #3 give cutAtEntry=3");
  const both = await request.get(`/handoffs/${id}/export?format=bundle&cut=${third.seq}&cutAtEntry=3`);
  expect(both.status()).toBe(400);
  expect((await both.json()).error.message).toBe("cutAtEntry: give cut (an entry's seq) or cutAtEntry (its #number), not both");
  const missing = await request.get(`/handoffs/${id}/export?format=bundle&cutAtEntry=9`);
  expect(missing.status()).toBe(400);
  expect((await missing.json()).error.message).toBe(`handoff ${id} has no entry #9; its entries are #1–#5`);
});
