import fs from "node:fs";
import { expect, test, type Locator, type Page, type Request } from "@playwright/test";
import { prepareDataDir, signInWith, startAndWait, stopAndWait, whenHydrated, type ExtraServer } from "./support/extra-server";

/** The bodies of the server-action posts `page` sends (React marks each with a Next-Action header), in order. */
function actionPosts(page: Page): string[] {
  const bodies: string[] = [];
  page.on("request", (request: Request) => {
    if (request.method() === "POST" && request.headers()["next-action"]) bodies.push(request.postData() ?? "");
  });
  return bodies;
}

const bytes = (body: string) => Buffer.byteLength(body, "utf8");

/**
 * Posts a form `button` refuses twice (`invalid` is the field it marks), and checks the second
 * post: it carries `typed` as the first did, and neither the refusal nor the first post's size.
 */
async function refusedThenSentAgain(posts: string[], button: Locator, invalid: Locator, typed: string): Promise<void> {
  await button.click();
  await expect(invalid).toHaveAttribute("aria-invalid", "true");
  await button.click();
  await expect.poll(() => posts.length).toBe(2);
  // The second answer in before typing on: React resets the form to its state's values once it lands.
  await expect(button).toBeEnabled();
  const [refused, again] = posts.splice(0);
  expect(refused).toContain(typed);
  expect(again).not.toContain("Please correct the highlighted fields.");
  expect(bytes(again)).toBeLessThan(bytes(refused) + 100);
}

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
  // Once the context, not twice (was about 80 KiB: the context again inside the previous state).
  await refusedThenSentAgain(posts, create, page.getByLabel("Title"), context);
});

// The same for the forms whose success shows a secret once: after it, the next post carried the
// new token (or the webhook's signing secret) back to the server inside the previous state.
test("create a token: refused then sent again, and after a success the next post does not carry the token shown", async ({ page }) => {
  const posts = actionPosts(page);
  await page.goto("/settings/tokens");
  const create = await whenHydrated(page.getByRole("button", { name: "Create token" }));
  await page.getByLabel("Name").fill("Not A Token Name");
  await refusedThenSentAgain(posts, create, page.getByLabel("Name"), "Not A Token Name");

  const suffix = Date.now().toString(36);
  await page.getByLabel("Name").fill(`posts-first-${suffix}`);
  await create.click();
  const token = ((await page.getByTestId("new-token").textContent()) ?? "").trim();
  expect(token).toMatch(/^baton_/);
  await page.getByLabel("Name").fill(`posts-second-${suffix}`);
  await create.click();
  await expect.poll(() => posts.length).toBe(2);
  expect(posts[1]).toContain(`posts-second-${suffix}`);
  expect(posts[1]).not.toContain(token);
});

test("add a webhook: refused then sent again, and after a success the next post does not carry the signing secret shown", async ({ page }) => {
  const posts = actionPosts(page);
  await page.goto("/settings/webhooks");
  const add = await whenHydrated(page.getByRole("button", { name: "Add webhook" }));
  const refusedUrl = "ftp://posts.example/refused-hook";
  await page.getByLabel("URL").fill(refusedUrl);
  await page.getByRole("checkbox", { name: /^question\.asked/ }).check();
  await refusedThenSentAgain(posts, add, page.getByLabel("URL"), refusedUrl);

  const suffix = Date.now().toString(36);
  await page.getByLabel("URL").fill(`http://127.0.0.1:9/first-${suffix}`);
  await page.getByRole("checkbox", { name: /^question\.asked/ }).check();
  await add.click();
  const secret = ((await page.getByTestId("webhook-secret").textContent()) ?? "").trim();
  expect(secret.length).toBeGreaterThan(20);
  await page.getByLabel("URL").fill(`http://127.0.0.1:9/second-${suffix}`);
  await page.getByRole("checkbox", { name: /^question\.asked/ }).check();
  await add.click();
  await expect.poll(() => posts.length).toBe(2);
  expect(posts[1]).toContain(`second-${suffix}`);
  expect(posts[1]).not.toContain(secret);
});

// The consent page as an operator sees it on a BATON_AUTH=required server: signed in with an operator token.
test.describe("the OAuth consent page", () => {
  const port = Number(process.env.BATON_E2E_PORT || 3100) + 41;
  const origin = `http://127.0.0.1:${port}`;
  // Nothing listens here: Chromium's navigation to it is answered by the test, as the client's listener would.
  const redirectUri = `http://127.0.0.1:${port + 1}/callback`;
  let server: ExtraServer | undefined;
  let operatorToken = "";

  test.beforeAll(async () => {
    const prepared = prepareDataDir([{ name: "desk", role: "operator" }]);
    operatorToken = prepared.tokens.desk;
    server = await startAndWait({ dataDir: prepared.dataDir, port, env: { BATON_AUTH: "required" } }, async () => (await fetch(`${origin}/.well-known/oauth-authorization-server`)).status === 200, "the BATON_AUTH=required server");
  });

  test.afterAll(async () => {
    if (!server) return;
    await stopAndWait(server);
    fs.rmSync(server.dataDir, { recursive: true, force: true });
  });

  test("a refused decision, then another: the second post without the first's parameters and refusal again", async ({ page }) => {
    const registration = await fetch(`${origin}/oauth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ client_name: "Posts", redirect_uris: [redirectUri] }) });
    expect(registration.status).toBe(201);
    const clientId = ((await registration.json()) as { client_id: string }).client_id;
    // A long state, carried by a hidden field: in the refused state's values too, so a second post holding that state weighs it twice.
    const state = "s".repeat(2000);
    const query = new URLSearchParams({ client_id: clientId, redirect_uri: redirectUri, response_type: "code", code_challenge: "c".repeat(43), code_challenge_method: "S256", resource: `${origin}/api/mcp`, state });
    let callback: URL | undefined;
    await page.route(`http://127.0.0.1:${port + 1}/**`, (route) => {
      callback = new URL(route.request().url());
      return route.fulfill({ status: 200, contentType: "text/plain", body: "client callback" });
    });
    await page.goto(`${origin}/oauth/authorize?${query}`);
    await signInWith(page, operatorToken);
    const posts = actionPosts(page);
    const approve = await whenHydrated(page.getByRole("button", { name: "Approve" }));
    // A side the form does not offer (as a tampered page would send): refused on the page.
    await page.locator('input[name="act_as"][value="chat"]').evaluate((radio: HTMLInputElement) => (radio.value = "neither"));
    await approve.click();
    await expect(page.getByText("Please correct the highlighted fields.")).toBeVisible();
    await page.getByRole("button", { name: "Deny" }).click();
    await expect.poll(() => callback?.searchParams.get("error")).toBe("access_denied");
    expect(posts).toHaveLength(2);
    const [refused, again] = posts;
    expect(refused).toContain("neither");
    expect(again).not.toContain("Please correct the highlighted fields.");
    // The state once, as its hidden field (was twice: the refused state's values held it too).
    expect(again.split(state).length - 1).toBe(1);
    expect(bytes(again)).toBeLessThan(bytes(refused) + 100);
  });
});
