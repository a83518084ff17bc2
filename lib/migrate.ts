/** Applying prisma/migrations in process at start-up (dashboard, MCP, CLI); see ensureMigrated. */
import "server-only";
import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { databaseFile, databaseUrl } from "./config";

/**
 * Applies the committed migrations (prisma/migrations, authored with `npm run db:new-migration`)
 * in this process, recording them in `_prisma_migrations` exactly as `prisma migrate deploy`
 * does (sha-256 checksum of the SQL), so the Prisma CLI stays the authority on their state. In
 * process because spawning the CLI costs 1.5 s, and the first `baton mcp` on an empty data
 * folder must answer fast.
 */
const projectRoot = path.resolve(import.meta.dirname, "..");
const migrationsDir = path.join(projectRoot, "prisma", "migrations");
/** How long a second process waits for the one applying migrations (BEGIN IMMEDIATE). */
const MIGRATION_LOCK_TIMEOUT_MS = 30_000;

const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    TEXT PRIMARY KEY NOT NULL,
    "checksum"              TEXT NOT NULL,
    "finished_at"           DATETIME,
    "migration_name"        TEXT NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        DATETIME,
    "started_at"            DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count"   INTEGER UNSIGNED NOT NULL DEFAULT 0
)`;

function committedMigrations(): string[] {
  return fs
    .readdirSync(migrationsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

function appliedIn(sqlite: Database.Database): Set<string> {
  const hasTable = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'").get();
  if (!hasTable) return new Set();
  const rows = sqlite.prepare("SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL").all();
  return new Set(rows.map((row) => (row as { migration_name: string }).migration_name));
}

/** Names of committed migrations the database has not applied yet (all of them for a new file). */
export function pendingMigrations(url: string = databaseUrl()): string[] {
  const file = databaseFile(url);
  if (!fs.existsSync(file)) return committedMigrations();
  const sqlite = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const applied = appliedIn(sqlite);
    return committedMigrations().filter((name) => !applied.has(name));
  } finally {
    sqlite.close();
  }
}

/** Prisma's timestamp form in `_prisma_migrations`: `2026-11-22T06:54:51.471+00:00`. */
const stamp = () => new Date().toISOString().replace("Z", "+00:00");

/**
 * Applies pending migrations, all in one immediate transaction: processes starting together on a
 * new data folder queue behind the first, then find nothing left to do. Checking first (a
 * read-only open) keeps an up-to-date start fast.
 */
export function ensureMigrated(url: string = databaseUrl()): void {
  if (pendingMigrations(url).length === 0) return;
  const file = databaseFile(url);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new Database(file, { timeout: MIGRATION_LOCK_TIMEOUT_MS });
  try {
    sqlite.pragma("journal_mode = WAL");
    const apply = sqlite.transaction(() => {
      sqlite.exec(MIGRATIONS_TABLE);
      const applied = appliedIn(sqlite);
      const record = sqlite.prepare(
        "INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES (?, ?, ?, ?, ?, 1)",
      );
      for (const name of committedMigrations().filter((migration) => !applied.has(migration))) {
        const sql = fs.readFileSync(path.join(migrationsDir, name, "migration.sql"), "utf8");
        const startedAt = stamp();
        sqlite.exec(sql);
        record.run(randomUUID(), createHash("sha256").update(sql).digest("hex"), stamp(), name, startedAt);
      }
    });
    apply.immediate();
  } finally {
    sqlite.close();
  }
}
