import os from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";

// One port per person running e2e at once; the data folder and build folder follow it, so two
// runs never share a database or a build. The folder is derived, not random: Playwright loads
// this file in every worker and all of them must agree.
const port = Number(process.env.BATON_E2E_PORT || 3100);
const dataDir = path.join(os.tmpdir(), `baton-e2e-${port}`);
const distDir = `.next-e2e-${port}`;
process.env.BATON_DATA_DIR = dataDir;
process.env.DATABASE_URL = `file:${path.join(dataDir, "baton.db")}`;
process.env.BATON_E2E_BASE_URL = `http://127.0.0.1:${port}`;
process.env.BATON_E2E_SCRATCH = path.join(os.tmpdir(), `baton-e2e-${port}-scratch`);

const launchOptions = {
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
};
/** Specs that need the full browser (see `projects`). */
const FULL_BROWSER_SPECS = ["**/notifications.spec.ts"];

export default defineConfig({
  testDir: "e2e",
  globalSetup: "./e2e/support/scratch.ts",
  globalTeardown: ["./e2e/support/no-server-errors.ts", "./e2e/support/scratch.ts"],
  // Per port, like the data and build folders: two runs at once never delete each other's traces.
  outputDir: `test-results/e2e-${port}`,
  // The tests share one server and database; one worker keeps 2-core machines responsive.
  workers: 1,
  fullyParallel: false,
  // On CI one retry, so a timing hiccup of a loaded machine does not block a landing; a test that
  // needed it is still reported by name as flaky (scripts/test-all.ts prints them).
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"], ["json", { outputFile: `.test-results/e2e-${port}.json` }]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    trace: "retain-on-failure",
    permissions: ["clipboard-read", "clipboard-write"],
    launchOptions: { ...launchOptions, executablePath: process.env.CHROMIUM_HEADLESS_SHELL_PATH || "/usr/bin/chromium-headless-shell" },
  },
  // Debian's Chromium in two builds. Most specs run in its headless shell (package
  // chromium-headless-shell, the build Playwright itself runs headless tests in), which on these
  // 2-core machines takes about a quarter less time than the full browser's headless mode.
  // Web notifications need the full browser: the shell denies their permission.
  projects: [
    { name: "chromium", testIgnore: FULL_BROWSER_SPECS, use: { ...devices["Desktop Chrome"] } },
    {
      name: "chromium-full",
      testMatch: FULL_BROWSER_SPECS,
      use: { ...devices["Desktop Chrome"], launchOptions: { ...launchOptions, executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium" } },
    },
  ],
  webServer: {
    command: "node scripts/e2e-server.mjs",
    url: `http://127.0.0.1:${port}`,
    timeout: 300_000,
    reuseExistingServer: false,
    stdout: "ignore",
    stderr: "pipe",
    env: {
      PORT: String(port),
      BATON_DATA_DIR: dataDir,
      DATABASE_URL: process.env.DATABASE_URL,
      BATON_DIST_DIR: distDir,
    },
  },
});
