import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { SECRET_SAMPLES, embed, embeddingOf, secretPartOf } from "../tests/fixtures/secrets/corpus";
import { waitForHydration } from "./hydration";

// The server's data folder (playwright.config.ts): the test greps its files for the secrets.
const dataDir = path.join(os.tmpdir(), `baton-e2e-${Number(process.env.BATON_E2E_PORT || 3100)}`);

test("the dashboard redacts secrets and says where, and none reaches the data folder", async ({ page }) => {
  const github = SECRET_SAMPLES.find((sample) => sample.name === "GitHub personal token")!;
  await page.goto("/handoffs/new");
  await page.getByLabel("Title").fill("E2E: secrets");
  await page.getByLabel("First context").fill(`Deploy with ${github.value} for now.`);
  await page.getByRole("button", { name: "Create handoff" }).click();
  await expect(page).toHaveURL(/\/handoffs\/hof_[A-Za-z0-9_-]{21}/);
  await expect(page.getByTestId("created-redaction-notice")).toContainText("1 secret was redacted before storing");
  await expect(page.locator("li[data-seq]").first()).toContainText("Deploy with [redacted: github] for now.");

  const samples = SECRET_SAMPLES.slice(0, 12);
  await waitForHydration(page);
  await page.getByLabel("Content").fill(samples.map((sample, i) => embed(sample, embeddingOf(i))).join("\n\n"));
  await page.getByRole("button", { name: "Post entry" }).click();
  const notice = page.getByTestId("redaction-notice");
  await expect(notice).toContainText("Secrets were redacted before the entry was stored");
  await expect(notice.locator("li")).toHaveCount(samples.length);
  await expect(notice.locator("li").first()).toHaveText(/^redacted a secret \(aws at line 1, column \d+\) in content$/);
  await expect(page.locator("li[data-seq]")).toHaveCount(2);

  const files = fs.readdirSync(dataDir).filter((name) => name.startsWith("baton.db")).map((name) => path.join(dataDir, name));
  expect(files.length).toBeGreaterThan(0);
  for (const file of files) {
    const bytes = fs.readFileSync(file).toString("latin1");
    for (const sample of [github, ...samples]) {
      for (const line of secretPartOf(sample).split("\n").filter((part) => part.length >= 12 && !part.startsWith("-----"))) {
        expect(bytes.includes(line), `${path.basename(file)} holds the ${sample.name}`).toBe(false);
      }
    }
  }
});
