import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/** One rule's findings, as the builder answers them (axe-core itself is not a dependency of ours). */
type Violation = Awaited<ReturnType<AxeBuilder["analyze"]>>["violations"][number];

/**
 * axe's violations on the page as it stands. Legacy mode runs axe in the page itself; the default
 * mode finishes every run in a new blank page, which took 1.7 of each run's 2 seconds here. It
 * leaves out cross-origin frames, and the desk has none.
 */
export async function axeViolations(page: Page): Promise<Violation[]> {
  return (await new AxeBuilder({ page }).setLegacyMode(true).analyze()).violations;
}

/**
 * No accessibility violation axe can find on the page as it stands. Waits for the document's
 * title first: after a server action Next may stream it in a moment after the content.
 */
export async function expectNoAxeViolations(page: Page): Promise<void> {
  await expect(page).toHaveTitle(/\S/);
  const violations = await axeViolations(page);
  expect(violations.map((violation) => `${violation.id}: ${violation.help} (${violation.nodes[0]?.target})`)).toEqual([]);
}
