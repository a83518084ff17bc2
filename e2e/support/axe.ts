import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/**
 * No accessibility violation axe can find on the page as it stands. Waits for the document's
 * title first: after a server action Next may stream it in a moment after the content.
 */
export async function expectNoAxeViolations(page: Page): Promise<void> {
  await expect(page).toHaveTitle(/\S/);
  const results = await new AxeBuilder({ page }).analyze();
  expect(results.violations.map((violation) => `${violation.id}: ${violation.help} (${violation.nodes[0]?.target})`)).toEqual([]);
}
