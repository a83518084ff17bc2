import { expect, type Page } from "@playwright/test";

/**
 * Waits until React has hydrated the page. Relative times render as an absolute "… UTC" stamp on
 * the server and switch to "3 minutes ago" once hydrated; that switch changes line wrapping at
 * 375 px, so a click aimed before it can land where the button no longer is.
 */
export async function waitForHydration(page: Page) {
  await expect(page.locator("time").first()).not.toContainText("UTC");
}
