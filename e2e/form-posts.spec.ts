import { expect, test, type Page, type Request } from "@playwright/test";
import { whenHydrated } from "./support/extra-server";

/** The bodies of the server-action posts `page` sends (React marks each with a Next-Action header), in order. */
function actionPosts(page: Page): string[] {
  const bodies: string[] = [];
  page.on("request", (request: Request) => {
    if (request.method() === "POST" && request.headers()["next-action"]) bodies.push(request.postData() ?? "");
  });
  return bodies;
}

const bytes = (body: string) => Buffer.byteLength(body, "utf8");

// useActionState hands a form's action its previous state, and a server action posts every
// argument: after a refusal, whose state holds what was typed, each post carried it twice.
test("a form refused once sends only what it holds the second time, not the refused state: register agent, new handoff", async ({ page }) => {
  const posts = actionPosts(page);

  await page.goto("/agents/new");
  const register = await whenHydrated(page.getByRole("button", { name: "Register agent" }));
  await page.getByLabel("Persona").fill("Not A Slug");
  const name = "Named at the longest a name may be, to make a state that holds it weigh: ".padEnd(100, "n");
  await page.getByLabel("Name (optional)").fill(name);
  await register.click();
  await expect(page.getByText("Please correct the highlighted fields.")).toBeVisible();
  await register.click();
  await expect.poll(() => posts.length).toBe(2);
  const [refusedAgent, againAgent] = posts.splice(0);
  expect(refusedAgent).toContain(name);
  expect(againAgent).toContain(name);
  // The refusal's message and the persona's error exist only in the state the first post got back.
  expect(againAgent).not.toContain("Please correct the highlighted fields.");
  expect(againAgent).not.toContain("is not a slug");
  expect(bytes(againAgent)).toBeLessThan(bytes(refusedAgent) + 200);

  await page.goto("/handoffs/new");
  const create = await whenHydrated(page.getByRole("button", { name: "Create handoff" }));
  // 40 KiB of context and no title: refused, the context kept in the form's state.
  const context = "A long first context that must be sent once per post. ".repeat(750);
  await page.getByLabel("First context").fill(context);
  await create.click();
  await expect(page.getByLabel("Title")).toHaveAttribute("aria-invalid", "true");
  await create.click();
  await expect.poll(() => posts.length).toBe(2);
  const [refusedThread, againThread] = posts;
  expect(bytes(refusedThread)).toBeGreaterThan(context.length);
  // Once the context, not twice (was about 80 KiB: the context again inside the previous state).
  expect(bytes(againThread)).toBeLessThan(bytes(refusedThread) + 200);
});
