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

/**
 * The search box is the first box on the desk (`/` focuses it), and an ID pasted there found
 * nothing: titles and entries do not hold it, so the desk said "No handoff matches these filters"
 * for a thread that exists. It now offers the thread first.
 */
test("an ID or a link to a thread pasted into the search box offers that thread", async ({ page, request, baseURL }) => {
  const created = await request.post("/api/handoffs", { data: { title: "E2E pasted into search", content: "context", asClient: "chat" } });
  expect(created.status()).toBe(201);
  const { handoff } = (await created.json()) as { handoff: { id: string } };

  for (const pasted of [` ${handoff.id} `, `${baseURL}/handoffs/${handoff.id}?as=code`]) {
    await page.goto("/");
    await page.getByRole("searchbox", { name: /Search titles and entries/ }).fill(pasted);
    const offer = page.getByTestId("pasted-id");
    await expect(offer).toHaveText(`That is a handoff ID: open ${handoff.id}`);
    await offer.getByRole("link").click();
    await expect(page).toHaveURL(new RegExp(`/handoffs/${handoff.id}$`));
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("E2E pasted into search");
  }

  // Words that hold no ID offer none.
  await page.goto("/?q=pasted");
  await expect(page.locator(`li[data-handoff-id="${handoff.id}"]`)).toBeVisible();
  await expect(page.getByTestId("pasted-id")).toHaveCount(0);
});
