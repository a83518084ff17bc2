import { expect, test } from "@playwright/test";

// Issue 8, point 6: an unknown agent answers HTTP 404 (status and page), a known one 200 with its
// page: nothing streams before the agent is looked up.
test("an unknown or malformed agent ID answers 404 with the not-found page; a known one 200", async ({ page, request }) => {
  for (const ref of ["999999", "deadbeef", "hof_notanagent", "-1"]) {
    expect((await request.get(`/agents/${ref}`)).status(), ref).toBe(404);
    const response = await page.goto(`/agents/${ref}`);
    expect(response!.status(), ref).toBe(404);
    await expect(page.getByRole("heading", { name: "No such agent" })).toBeVisible();
  }
  const registered = await request.post("/api/agents", { data: { personaSlug: "not-found-check" } });
  expect(registered.status()).toBe(201);
  const { id, shortId } = (await registered.json()) as { id: number; shortId: string };
  for (const ref of [String(id), shortId]) {
    const response = await page.goto(`/agents/${ref}`);
    expect(response!.status(), ref).toBe(200);
    await expect(page.getByRole("heading", { level: 1, name: "not-found-check" })).toBeVisible();
  }
});
