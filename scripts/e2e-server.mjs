#!/usr/bin/env node
// @ts-check
/**
 * Playwright's web server: `npm start` itself (scripts/start.mjs: build when stale, then the
 * compiled server in plain Node) on a fresh data folder that playwright.config.ts chose, with
 * every 5xx recorded in it (e2e/support/no-server-errors.ts fails the run on any). Extra servers
 * for auth and network tests reuse the build and their own folder: `BATON_SKIP_BUILD=1` and
 * `BATON_E2E_KEEP_DATA=1`.
 */
import fs from "node:fs";
import path from "node:path";

const dataDir = process.env.BATON_DATA_DIR;
if (!process.env.PORT || !dataDir || !process.env.BATON_DIST_DIR) {
  throw new Error("run through playwright.config.ts: PORT, BATON_DATA_DIR and BATON_DIST_DIR must be set");
}
if (!process.env.BATON_E2E_KEEP_DATA) fs.rmSync(dataDir, { recursive: true, force: true });
fs.mkdirSync(dataDir, { recursive: true });
process.env.BATON_SERVER_ERROR_LOG = path.join(dataDir, "server-errors.log");
await import("./start.mjs");
