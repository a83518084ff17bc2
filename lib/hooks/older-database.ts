import "server-only";
import fs from "node:fs";
import { databaseFile } from "../config";
import { engineOf } from "../database";
import { pendingMigrations } from "../database/migrate";

/**
 * A hook never migrates the database (a newer baton than the database, after an upgrade): a
 * migration waits for other writers' lock and runs to its end, neither of which the hook's deadline
 * can cut short (with another process writing, a hook took 30 s), and the MCP server, the dashboard
 * and every other command apply it as they start. Claude Code starts the MCP server alongside the
 * session's hooks, so a hook waits this long for it to apply them rather than miss its work.
 */
const MIGRATIONS_WAIT_MS = 2_000;

/** How many migrations the database at `url` still lacks, after waiting up to 2 s (polling every 100 ms) for another process to apply them. */
async function migrationsLeftAfterWait(url: string): Promise<number> {
  let pending = (await pendingMigrations(url)).length;
  for (const waitUntil = Date.now() + MIGRATIONS_WAIT_MS; pending > 0 && Date.now() < waitUntil; ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    pending = (await pendingMigrations(url)).length;
  }
  return pending;
}

/** What a hook says when the database is still older than it. */
const olderDatabaseNote = (pending: number): string =>
  `the Baton database is older than this baton (${pending} ${pending === 1 ? "migration" : "migrations"} to apply); the MCP server, the dashboard or any other baton command applies them as it starts`;

/**
 * Why a hook cannot use the database at `url` as it is, or null: a SQLite file not there yet (a
 * hook never creates one: `missing` names it), or a database still older than this baton after
 * the wait (`older` says so).
 */
export async function hookDatabaseProblem(url: string): Promise<{ missing: string } | { older: string } | null> {
  if (engineOf(url) === "sqlite" && !fs.existsSync(databaseFile(url))) return { missing: databaseFile(url) };
  const pending = await migrationsLeftAfterWait(url);
  return pending > 0 ? { older: olderDatabaseNote(pending) } : null;
}
