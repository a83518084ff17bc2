/**
 * The server `npm start` runs: migrates the database, then serves on HOST:PORT (default
 * 127.0.0.1:3000) through Baton's own HTTP server (lib/server: the guard, the API, Next for
 * pages). In production this file runs compiled (scripts/build-server.ts, started by
 * scripts/start.mjs), never through tsx; `npm run dev` runs it from the sources with --dev.
 * BATON_SERVER_ERROR_LOG names a file every 5xx is appended to (the e2e run fails on any).
 */
import fs from "node:fs";
import path from "node:path";
import { dataDir, describeDatabase } from "../lib/config";
import { ensureMigrated } from "../lib/database/migrate";
import { isCheckout, projectRoot } from "../lib/paths.mjs";
import { startBatonServer } from "../lib/server";
import { boundHeap, shrinkYoungGeneration } from "../lib/server/heap-bounds";

boundHeap();
const dev = process.argv.includes("--dev");
const host = process.env.HOST || "127.0.0.1";
const port = Number(process.env.PORT || "3000");
process.env.NEXT_TELEMETRY_DISABLED = "1";
process.env.CHECKPOINT_DISABLE = "1";

try {
  await ensureMigrated();
} catch (error) {
  console.error(`baton: could not migrate the database ${describeDatabase()}: ${(error as Error).message}`);
  process.exit(1);
}
console.log(`baton: data in ${dataDir()}, database ${describeDatabase()}`);
const errorLog = process.env.BATON_SERVER_ERROR_LOG;
const onServerError = errorLog ? (line: string) => fs.appendFileSync(errorLog, `${line}\n`) : undefined;
try {
  const server = await startBatonServer({ dir: path.resolve(projectRoot), host, port, dev, onServerError });
  shrinkYoungGeneration();
  console.log(`baton: serving ${server.url}`);
  // The published package's users start here: say what comes next (contributors know the README).
  if (!isCheckout()) console.log(`baton: open ${server.url} in a browser; wire a repository for Claude Code with \`npx baton-desk setup claude-code\` in it`);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => {
      console.log(`baton: ${signal}: finishing requests in flight, then stopping`);
      void server.close().then(() => process.exit(0));
    });
  }
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
