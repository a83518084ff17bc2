/**
 * Where Baton's state lives (data folder, database URL), read from the environment on each call.
 * Not marked server-only: prisma.config.ts imports it, and the Prisma CLI loads that file with
 * its own loader, which knows nothing of the tsconfig path that makes "server-only" importable.
 */
import path from "node:path";
import { Unavailable } from "./errors";
import { defaultDataDir, homeShorthandProblem } from "./paths.mjs";
import { withoutCredentials } from "./url-credentials";

/**
 * Where Baton keeps its state: `BATON_DATA_DIR`, else the checkout's `data/` (lib/paths.mjs, the
 * same for the dashboard, MCP and the CLI). It moves the whole folder (database, handoff
 * documents, artifacts); `DATABASE_URL` moves only the database. Read on every call so tests
 * and the CLI can point a process at a temporary folder before first use.
 */
export function dataDir(): string {
  const problem = process.env.BATON_DATA_DIR ? homeShorthandProblem("BATON_DATA_DIR", process.env.BATON_DATA_DIR) : null;
  if (problem) throw new Unavailable(problem);
  // turbopackIgnore: the folder is chosen at run time; the build must not trace the project through it.
  return path.resolve(/*turbopackIgnore: true*/ process.env.BATON_DATA_DIR || defaultDataDir());
}

export function databaseUrl(): string {
  return process.env.DATABASE_URL || `file:${path.join(dataDir(), "baton.db")}`;
}

/** The SQLite file behind a `file:` URL, resolved against the working directory. */
export function databaseFile(url: string = databaseUrl()): string {
  if (!url.startsWith("file:")) {
    throw new Error(`DATABASE_URL must be a SQLite file: URL, got "${withoutCredentials(url, { keepUserName: true, standIn: "…" })}"`);
  }
  const file = url.slice("file:".length).replace(/\?.*$/, "");
  const problem = homeShorthandProblem("DATABASE_URL's file: path", file);
  if (problem) throw new Unavailable(problem);
  return path.resolve(/*turbopackIgnore: true*/ file);
}

/** The configured database for messages: a SQLite file's path, or a PostgreSQL URL without its password. */
export function describeDatabase(url: string = databaseUrl()): string {
  if (url.startsWith("file:")) return databaseFile(url);
  return withoutCredentials(url, { keepUserName: true, standIn: "…" });
}
