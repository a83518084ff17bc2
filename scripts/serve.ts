/**
 * The server `npm start` runs: migrates the database, then serves on HOST:PORT (default
 * 127.0.0.1:3000) through Baton's own HTTP server (lib/server: the guard, the API, Next for
 * pages). In production this file runs compiled (scripts/build-server.ts, started by
 * scripts/start.mjs), never through tsx; `npm run dev` runs it from the sources with --dev.
 * BATON_SERVER_ERROR_LOG names a file every 5xx is appended to (the e2e run fails on any).
 */
import fs from "node:fs";
import path from "node:path";
import { databaseFile, databaseUrl, dataDir, describeDatabase } from "../lib/config";
import { refuseBadBusyTimeout } from "../lib/database/busy";
import { engineOf } from "../lib/database/engine";
import type { Engine } from "../lib/database/types";
import { ensureMigrated } from "../lib/database/migrate";
import { Conflict } from "../lib/errors";
import { poolSize } from "../lib/database/postgres";
import { secretsPolicy } from "../lib/secrets";
import { isCheckout, projectRoot } from "../lib/paths.mjs";
import { startBatonServer } from "../lib/server";
import { boundHeap, shrinkYoungGeneration } from "../lib/server/heap-bounds";
import { wholeNumberParam } from "../lib/validation";

boundHeap();
const dev = process.argv.includes("--dev");
const host = process.env.HOST || "127.0.0.1";
// As typed, by the rule every door reads numbers by: `3OOO` or `3000x` is no port (Node's own refusal names no variable).
const portSetting = wholeNumberParam("PORT", 0, 65_535).safeParse(process.env.PORT || "3000");
if (!portSetting.success || portSetting.data === undefined) {
  console.error(`baton: PORT must be a whole number from 0 to 65535 (0: any free port), got ${JSON.stringify(process.env.PORT)}`);
  process.exit(1);
}
const port = portSetting.data;
process.env.NEXT_TELEMETRY_DISABLED = "1";
process.env.CHECKPOINT_DISABLE = "1";

/**
 * What stops the server before it migrates or serves, as its one line; null when nothing does: a
 * DATABASE_URL naming neither engine; on SQLite, a database it cannot write (a read-only file,
 * folder or disk would answer every change with a 500, and SQLite opens such a file read-only
 * without a word, so the file system is asked, as this user) or a BATON_BUSY_TIMEOUT_MS out of
 * range; on PostgreSQL, a pool size that would refuse every request; on either, a BATON_SECRETS
 * that is none of its values.
 */
function startRefusal(): string | null {
  let engine: Engine;
  try {
    engine = engineOf(databaseUrl());
    if (engine === "postgres") poolSize();
    else refuseBadBusyTimeout();
    secretsPolicy();
  } catch (error) {
    return `baton: ${(error as Error).message}`;
  }
  if (engine !== "sqlite") return null;
  const file = databaseFile(databaseUrl());
  for (const needed of [file, path.dirname(file)].filter((entry) => fs.existsSync(entry))) {
    try {
      fs.accessSync(needed, fs.constants.W_OK);
    } catch (error) {
      return `baton: cannot write the database ${describeDatabase()}: ${needed} is read-only here (${(error as NodeJS.ErrnoException).code}); make it writable, or choose another folder with BATON_DATA_DIR`;
    }
  }
  return null;
}
const refusal = startRefusal();
if (refusal) {
  console.error(refusal);
  process.exit(1);
}
try {
  await ensureMigrated();
} catch (error) {
  // A refusal names the database and what to do (another application's, a newer Baton's).
  console.error(error instanceof Conflict ? `baton: ${error.message}` : `baton: could not migrate the database ${describeDatabase()}: ${(error as Error).message}`);
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
  console.error(listenFailure(error) ?? (error as Error).message);
  process.exit(1);
}

/** Why the server could not listen, in one line that says what to change; null for any other failure. */
function listenFailure(error: unknown): string | null {
  const code = (error as NodeJS.ErrnoException).code;
  const where = `cannot listen on ${host}:${port}`;
  if (code === "EADDRINUSE") return `baton: ${where}: another program (another Baton?) listens there; stop it, or choose another port with PORT=<port>`;
  if (code === "EACCES") return `baton: ${where}: not allowed (a port below 1024 needs privileges); choose another port with PORT=<port>`;
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || code === "EAI_AGAIN") {
    return `baton: ${where}: HOST is no address of this machine (${code}); set HOST to one of its addresses, or leave it unset for 127.0.0.1`;
  }
  return null;
}
