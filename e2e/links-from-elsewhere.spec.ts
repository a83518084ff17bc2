import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { prepareDataDir, startAndWait, type ExtraServer } from "./support/extra-server";

/**
 * A signed-in operator who follows a link to Baton from another site (a chat message, claude.ai's
 * Connect button opening /oauth/authorize) lands on the page, as on one opened from Baton itself.
 * The session cookie was SameSite=Strict, which a browser leaves off every navigation another site
 * starts: the guard saw nobody signed in and sent the operator to /sign-in for a token again.
 */
const port = Number(process.env.BATON_E2E_PORT || 3100) + 97;
const origin = `http://127.0.0.1:${port}`;
// Another site: Chromium's requests to it are answered here, as a chat's page would be.
const elsewhere = "http://chat.example";

let server: ExtraServer;
let operatorToken: string;

test.beforeAll(async () => {
  const prepared = prepareDataDir([{ name: "desk", role: "operator" }]);
  operatorToken = prepared.tokens.desk;
  server = await startAndWait({ dataDir: prepared.dataDir, port, env: { BATON_AUTH: "required" } }, async () => (await fetch(`${origin}/sign-in`)).status === 200, "the BATON_AUTH=required server");
});

test.afterAll(() => {
  server?.stop();
  if (server) fs.rmSync(server.dataDir, { recursive: true, force: true });
});

test("a signed-in operator following a link from another site lands on the page, not on sign-in; other sites still cannot write", async ({ page }) => {
  await page.goto(`${origin}/sign-in?next=%2Fagents`);
  await page.getByLabel("Token").fill(operatorToken);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(`${origin}/agents`);

  await page.route(`${elsewhere}/**`, (route) =>
    route.fulfill({ status: 200, contentType: "text/html", body: `<!doctype html><title>Chat</title><a href="${origin}/agents">Baton's agents</a>` }),
  );
  await page.goto(`${elsewhere}/thread`);
  await page.getByRole("link", { name: "Baton's agents" }).click();
  await expect(page).toHaveURL(`${origin}/agents`);
  await expect(page.getByText("Signed in as")).toContainText("desk");

  // No write another site starts carries it, and the guard refuses such a write whatever it carries.
  await page.route(`${elsewhere}/form`, (route) =>
    route.fulfill({
      status: 200,
      contentType: "text/html",
      body: `<!doctype html><title>Form</title><form method="post" enctype="text/plain" action="${origin}/api/handoffs"><input name='{"title":"x","content":"y","z":"' value='"}'><button>Send</button></form>`,
    }),
  );
  await page.goto(`${elsewhere}/form`);
  const [answer] = await Promise.all([page.waitForResponse(`${origin}/api/handoffs`), page.getByRole("button", { name: "Send" }).click()]);
  expect(answer.status()).toBe(403);
  expect(await answer.text()).toContain("cross-site");
  const handoffs = await page.request.get(`${origin}/api/handoffs`);
  expect(((await handoffs.json()) as { total: number }).total).toBe(0);
});
