/**
 * `npx tsx scripts/screenshots.ts`: the desk's screenshots in docs/screenshots/ (the README shows
 * them): the home page, a search typed into it, the ⌘K palette, a thread (where it opens, and its
 * top: #1 and the fold), replying to a question, an agent page and the connect page, at 1280 and
 * 390 px, light and dark. It serves the app the way the end-to-end tests do (scripts/e2e-server.mjs: `npm
 * start` on a fresh data folder), writes the demo of scripts/desk-demo.ts through the API, and
 * shoots each page with Chromium once it has hydrated.
 *
 * BATON_DIST_DIR picks the build folder (default .next-screenshots, built when older than the
 * sources), BATON_SCREENSHOTS_PORT the port (3290), CHROMIUM_PATH the browser (/usr/bin/chromium).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type Page } from "@playwright/test";
import { waitUntil } from "../e2e/support/extra-server";
import { writeDesk } from "./desk-demo";

const root = path.resolve(import.meta.dirname, "..");
const port = Number(process.env.BATON_SCREENSHOTS_PORT || 3290);
const baseUrl = `http://127.0.0.1:${port}`;
const outDir = path.join(root, "docs", "screenshots");
const WIDTHS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;
const THEMES = ["light", "dark"] as const;

/** Waits until React has hydrated (relative times switch from "… UTC" to "3 minutes ago") and the page has settled. */
async function settle(page: Page): Promise<void> {
  await page.waitForFunction(() => [...document.querySelectorAll("time")].every((time) => !time.textContent?.includes("UTC")));
  await page.waitForLoadState("networkidle").catch(() => undefined);
  await page.waitForTimeout(300);
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-screenshots-"));
const server = spawn(process.execPath, ["scripts/e2e-server.mjs"], {
  cwd: root,
  detached: true,
  stdio: ["ignore", "inherit", "inherit"],
  env: {
    ...process.env,
    PORT: String(port),
    BATON_DATA_DIR: dataDir,
    DATABASE_URL: `file:${path.join(dataDir, "baton.db")}`,
    BATON_DIST_DIR: process.env.BATON_DIST_DIR || ".next-screenshots",
    // A tmux server nobody runs: the demo's delivery to it fails, as it does for a pane that is gone.
    BATON_TMUX_SOCKET: "baton-screenshots-none",
  },
});
try {
  // The first start builds the app: give it as long as a build takes on a loaded machine.
  await waitUntil(() => fetch(`${baseUrl}/api/health`).then((response) => response.ok), `the server at ${baseUrl}`, 600_000);
  const demo = await writeDesk(baseUrl, { repoParent: dataDir });
  const pages: { name: string; path: string; then?: (page: Page) => Promise<void> }[] = [
    { name: "home", path: "/" },
    {
      name: "search",
      path: "/",
      then: async (page) => {
        await page.getByLabel("Search titles and entries").fill("refresh");
        await page.waitForURL(/q=refresh/);
        await page.waitForLoadState("networkidle").catch(() => undefined);
      },
    },
    {
      name: "palette",
      path: "/",
      then: async (page) => {
        await page.keyboard.press("Control+k");
        await page.getByRole("combobox", { name: "Jump to a handoff, an agent or a page" }).fill("chunk");
        await page.getByTestId("palette-results").getByRole("option").first().waitFor();
        await page.waitForLoadState("networkidle").catch(() => undefined);
      },
    },
    { name: "thread", path: `/handoffs/${demo.longThreadId}?as=chat` },
    { name: "thread-long", path: `/handoffs/${demo.longThreadId}?as=chat`, then: (page) => page.evaluate(() => window.scrollTo(0, 0)) },
    {
      name: "reply",
      path: `/handoffs/${demo.longThreadId}?as=chat`,
      then: async (page) => {
        await page.locator("li[data-type=question] button[data-reply]").last().click();
        await page.getByLabel("Content").fill("Keep it per document: chunks are an implementation detail.");
        await page.getByLabel("Content").scrollIntoViewIfNeeded();
      },
    },
    { name: "agent", path: `/agents/${demo.handedOffAgentId}` },
    { name: "connect", path: "/connect" },
  ];
  fs.mkdirSync(outDir, { recursive: true });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  try {
    for (const theme of THEMES) {
      for (const viewport of WIDTHS) {
        const context = await browser.newContext({ viewport, colorScheme: theme, deviceScaleFactor: 1 });
        const page = await context.newPage();
        for (const shot of pages) {
          await page.goto(`${baseUrl}${shot.path}`);
          await settle(page);
          if (shot.then) {
            await shot.then(page);
            await page.waitForTimeout(300);
          }
          const file = path.join(outDir, `${shot.name}-${viewport.width}-${theme}.png`);
          await page.screenshot({ path: file });
          console.log(`wrote ${path.relative(root, file)}`);
        }
        await context.close();
      }
    }
  } finally {
    await browser.close();
  }
} finally {
  try {
    if (server.pid) process.kill(-server.pid, "SIGTERM");
  } catch {
    // The server already stopped (it says why on stderr above).
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}
