import { expect, test } from "@playwright/test";

/**
 * An ID copied from a chat app or an editor can carry invisible characters where the app wrapped
 * it (a zero-width space, a word joiner, a soft hyphen). The palette offered only "Search every
 * handoff for …" and Open a handoff said "That is not a handoff ID" for an ID that looked whole.
 */
test("an ID pasted with invisible characters inside opens from the palette and from Open a handoff", async ({ page, request }) => {
  const created = await request.post("/api/handoffs", { data: { title: "E2E pasted with invisibles", content: "context", asClient: "chat" } });
  expect(created.status()).toBe(201);
  const { handoff } = (await created.json()) as { handoff: { id: string } };
  const pastes = [`${handoff.id.slice(0, 9)}\u200b${handoff.id.slice(9)}`, `${handoff.id.slice(0, 12)}\u2060${handoff.id.slice(12)}`, `${handoff.id.slice(0, 6)}\u00ad${handoff.id.slice(6)}\ufeff`];

  for (const pasted of pastes) {
    await page.goto("/");
    await page.getByPlaceholder(/Paste a handoff ID/).fill(pasted);
    await page.getByRole("button", { name: "Open", exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/handoffs/${handoff.id}$`));
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("E2E pasted with invisibles");

    await page.keyboard.press("Control+k");
    await page.locator("#command-palette input").fill(pasted);
    await expect(page.locator("#command-palette [role=option]").first()).toHaveText(`Open ${handoff.id}`);
    await page.keyboard.press("Escape");
  }
});
