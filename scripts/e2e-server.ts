/**
 * Playwright's web server: a production build (`next build` + `next start`) on a fresh
 * database in the temporary data folder that playwright.config.ts chose.
 */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { dataDir } from "../lib/config";
import { ensureMigrated } from "../lib/migrate";

const root = path.resolve(import.meta.dirname, "..");
const nextBin = path.join(root, "node_modules", ".bin", "next");
const port = process.env.PORT;
if (!port || !process.env.BATON_DATA_DIR || !process.env.BATON_DIST_DIR) {
  throw new Error("run through playwright.config.ts: PORT, BATON_DATA_DIR and BATON_DIST_DIR must be set");
}
fs.rmSync(dataDir(), { recursive: true, force: true });
ensureMigrated();
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", BATON_LISTEN_HOST: "127.0.0.1" };
execFileSync(nextBin, ["build"], { cwd: root, env, stdio: ["ignore", "ignore", "inherit"] });
// Next stays in this process group: Playwright stops the web server by signalling the group,
// which reaches the next-server child that `next start` leaves behind.
const server = spawn(nextBin, ["start", "-H", "127.0.0.1", "-p", port], { cwd: root, env, stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => server.kill(signal));
server.on("exit", (code) => process.exit(code ?? 0));
