/**
 * Playwright's web server: a production build served by Baton's own server (guard included) on a
 * fresh database in the temporary data folder that playwright.config.ts chose. Extra servers for
 * auth tests reuse the build: `BATON_E2E_SKIP_BUILD=1` and `BATON_E2E_KEEP_DATA=1`.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { dataDir } from "../lib/config";
import { ensureMigrated } from "../lib/migrate";
import { startBatonServer } from "../lib/server";

const root = path.resolve(import.meta.dirname, "..");
const nextBin = path.join(root, "node_modules", ".bin", "next");
const port = process.env.PORT;
if (!port || !process.env.BATON_DATA_DIR || !process.env.BATON_DIST_DIR) {
  throw new Error("run through playwright.config.ts: PORT, BATON_DATA_DIR and BATON_DIST_DIR must be set");
}
process.env.NEXT_TELEMETRY_DISABLED = "1";
if (!process.env.BATON_E2E_KEEP_DATA) fs.rmSync(dataDir(), { recursive: true, force: true });
ensureMigrated();
if (!process.env.BATON_E2E_SKIP_BUILD) {
  execFileSync(nextBin, ["build"], { cwd: root, env: process.env, stdio: ["ignore", "ignore", "inherit"] });
}
try {
  // Every 5xx is recorded; playwright.config.ts's teardown fails the run if there is any.
  const errorLog = path.join(dataDir(), "server-errors.log");
  const onServerError = (line: string) => fs.appendFileSync(errorLog, `${line}\n`);
  const server = await startBatonServer({ dir: root, host: process.env.HOST || "127.0.0.1", port: Number(port), onServerError });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void server.close().then(() => process.exit(0)));
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
