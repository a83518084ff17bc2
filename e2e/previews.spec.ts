import { expect, test, type Page } from "@playwright/test";

/**
 * Previews read as text (issue 28, point 5): the attention list's question excerpts and the
 * search results' passages show an entry's words, not its Markdown; the thread renders it.
 */
const MARKUP = /\*\*|`|\|-{3}|^#/m;

const QUESTION = [
  "### Rollout of **zanzibar** tokens",
  "",
  "Should the `refresh` path keep the *old* cookie?",
  "",
  "| option | cost |",
  "|---|---|",
  "| keep | **low** |",
  "",
  "```ts",
  "const zanzibar = rotate(token);",
  "```",
].join("\n");

async function previewTexts(page: Page, testId: string): Promise<string[]> {
  const texts = await page.getByTestId(testId).allInnerTexts();
  expect(texts.length).toBeGreaterThan(0);
  return texts;
}

test("the attention list and search results show an entry's words without its Markdown, at both sizes, light and dark", async ({ page, request }) => {
  const created = await request.post("/api/handoffs", { data: { title: "E2E previews: zanzibar rollout", content: "The plan in **bold** and `code`." } });
  expect(created.status()).toBe(201);
  const { handoff } = (await created.json()) as { handoff: { id: string } };
  expect((await request.post(`/api/handoffs/${handoff.id}/entries`, { data: { type: "question", content: QUESTION, asClient: "code" } })).status()).toBe(201);

  for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    for (const colorScheme of ["light", "dark"] as const) {
      await page.setViewportSize(viewport);
      await page.emulateMedia({ colorScheme });
      await page.goto("/");
      const question = page.getByTestId("attention-thread").filter({ hasText: "E2E previews: zanzibar rollout" });
      await expect(question.getByTestId("question-excerpt")).toContainText("Rollout of zanzibar tokens Should the refresh path keep the old cookie?");
      for (const text of await previewTexts(page, "question-excerpt")) expect(text).not.toMatch(MARKUP);

      await page.goto("/?q=zanzibar");
      const excerpt = page.locator(`li[data-handoff-id="${handoff.id}"]`).getByTestId("search-excerpt");
      await expect(excerpt).toContainText("zanzibar");
      for (const text of await previewTexts(page, "search-excerpt")) expect(text).not.toMatch(MARKUP);
    }
  }

  // The thread itself still renders the Markdown.
  await page.goto(`/handoffs/${handoff.id}`);
  await expect(page.locator("li[data-seq] strong").filter({ hasText: "zanzibar" })).toBeVisible();
  await expect(page.locator("li[data-seq] table")).toBeVisible();
});
