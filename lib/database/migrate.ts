/** Applying Prisma's migrations in process at start-up (dashboard, MCP, CLI); see ensureMigrated. */
import "server-only";
import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import type pg from "pg";
import { databaseFile, databaseUrl, describeDatabase } from "../config";
import { oneLine } from "../one-line";
import { batonCommand } from "../paths.mjs";
import { Conflict, Unavailable } from "../errors";
import { BUSY_TIMEOUT_MS, unavailableWhenBusy } from "./busy";
import { engineOf } from "./engine";
import { withConnection, withTransaction } from "./postgres";
import { narrowOlderDataFolder, narrowOlderModes, refuseDataFolderOfAnotherUser } from "./private-modes";
import { createSqliteFile, refuseUnlessPlainFile } from "./sqlite";
import type { Engine } from "./types";

/**
 * Applies the committed migrations in this process, recording them in `_prisma_migrations`
 * exactly as `prisma migrate deploy` does (sha-256 checksum of the SQL), so the Prisma CLI stays
 * the authority on their state. In process because spawning the CLI costs 1.5 s, and the first
 * `baton mcp` on an empty data folder must answer fast.
 *
 * SQLite's migrations are prisma/migrations (authored with `npm run db:new-migration`);
 * PostgreSQL's are prisma/postgres/migrations, generated from the same schema by
 * `npm run db:postgres-schema` (scripts/postgres-schema.ts).
 */
const projectRoot = path.resolve(import.meta.dirname, "..", "..");
export const migrationsDirOf: Record<Engine, string> = {
  sqlite: path.join(projectRoot, "prisma", "migrations"),
  postgres: path.join(projectRoot, "prisma", "postgres", "migrations"),
};
/** How long a second process waits for the one applying migrations (a lock's wait, not the connection's: CONNECT_TIMEOUT_MS). */
const MIGRATION_LOCK_TIMEOUT_MS = 30_000;
/** pg_advisory_lock's key for "applying migrations" (any constant every Baton shares). */
const POSTGRES_MIGRATION_LOCK = 7_245_118;

const SQLITE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    TEXT PRIMARY KEY NOT NULL,
    "checksum"              TEXT NOT NULL,
    "finished_at"           DATETIME,
    "migration_name"        TEXT NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        DATETIME,
    "started_at"            DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count"   INTEGER UNSIGNED NOT NULL DEFAULT 0
)`;

const POSTGRES_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

const APPLIED = `SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;

function committedMigrations(engine: Engine): string[] {
  return fs
    .readdirSync(migrationsDirOf[engine], { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

function migrationSql(engine: Engine, name: string): { sql: string; checksum: string } {
  const sql = fs.readFileSync(path.join(migrationsDirOf[engine], name, "migration.sql"), "utf8");
  return { sql, checksum: createHash("sha256").update(sql).digest("hex") };
}

function appliedInSqlite(sqlite: Database.Database): Set<string> {
  const hasTable = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'").get();
  if (!hasTable) return new Set();
  return new Set(sqlite.prepare(APPLIED).all().map((row) => (row as { migration_name: string }).migration_name));
}

async function appliedInPostgres(client: pg.Client): Promise<Set<string>> {
  const { rows } = await client.query<{ exists: boolean }>("SELECT to_regclass('_prisma_migrations') IS NOT NULL AS exists");
  if (!rows[0].exists) return new Set();
  return new Set((await client.query<{ migration_name: string }>(APPLIED)).rows.map((row) => row.migration_name));
}

/**
 * The refusal of Baton's database that a newer Baton migrated (migrations `unknown` are not among
 * this Baton's), or null. An older Baton writes rows as its own schema had them: after the
 * newer one numbered entries, an older one stored every entry it was given as #0, without a
 * word. So every process refuses it as it starts, before it reads or writes a row.
 */
function newerDatabaseRefusal(url: string, unknown: string[]): Conflict | null {
  if (unknown.length === 0) return null;
  const { version } = JSON.parse(fs.readFileSync(path.join(projectRoot, "package.json"), "utf8")) as { version: string };
  const newest = oneLine(unknown.at(-1)!);
  const which = unknown.length === 1 ? `migration ${newest}, which this Baton ${version} does not know` : `${unknown.length} migrations this Baton ${version} does not know, the newest ${newest}`;
  return new Conflict(
    `the database ${oneLine(describeDatabase(url))} was migrated by a newer Baton (${which}), whose rows this one would store wrongly; nothing was read or changed: run that newer Baton (${batonCommand()} at its latest version; for Claude Code, \`${batonCommand()} setup claude-code\` again, or update the plugin that pins this one)`,
  );
}

/**
 * Names of committed migrations the database has not applied yet (all of them for a new one).
 * Every process asks as it starts, so two refusals come first: a data folder another user owns
 * (refuseDataFolderOfAnotherUser), and a database of Baton's with migrations this Baton does not
 * know (newerDatabaseRefusal).
 */
export async function pendingMigrations(url: string = databaseUrl()): Promise<string[]> {
  refuseDataFolderOfAnotherUser();
  const engine = engineOf(url);
  const committed = committedMigrations(engine);
  let applied: Set<string>;
  if (engine === "postgres") {
    applied = await withConnection(url, appliedInPostgres);
    // As below for SQLite's folder: the data folder still holds documents and artifacts.
    if (committed.some((name) => applied.has(name))) narrowOlderDataFolder();
  } else {
    const file = databaseFile(url);
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (!stat) return committed;
    refuseUnlessPlainFile(file, stat);
    const sqlite = new Database(file, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
    try {
      applied = appliedInSqlite(sqlite);
    } catch (error) {
      throw unavailableWhenBusy(error, "sqlite", BUSY_TIMEOUT_MS);
    } finally {
      sqlite.close();
    }
    // Every process starts here (the server, the CLI, baton mcp). Modes an older Baton left
    // loose are narrowed once the file is known to be Baton's database: one DATABASE_URL names
    // may be another application's, which is refused and left as it was.
    if (committed.some((name) => applied.has(name))) narrowOlderModes(file, stat);
  }
  // Baton's own (it applied some of this Baton's migrations): another application's database is refused by ensureMigrated.
  if (committed.some((name) => applied.has(name))) {
    const refusal = newerDatabaseRefusal(url, [...applied].filter((name) => !committed.includes(name)).sort());
    if (refusal) throw refusal;
  }
  return committed.filter((name) => !applied.has(name));
}

/** Prisma's timestamp form in `_prisma_migrations`: `2026-11-22T06:54:51.471+00:00`. */
const stamp = () => new Date().toISOString().replace("Z", "+00:00");

/**
 * Applies pending migrations, all in one transaction: processes starting together on a new
 * database queue behind the first (SQLite's write lock, PostgreSQL's advisory lock), then find
 * nothing left to do. Checking first keeps an up-to-date start fast.
 */
export async function ensureMigrated(url: string = databaseUrl()): Promise<void> {
  if ((await pendingMigrations(url)).length === 0) return;
  if (engineOf(url) === "postgres") return migratePostgres(url);
  const file = databaseFile(url);
  createSqliteFile(file);
  const sqlite = new Database(file, { timeout: MIGRATION_LOCK_TIMEOUT_MS });
  try {
    // Checked before WAL mode is set: a refused file is left exactly as it was.
    const tables = sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name").pluck().all() as string[];
    const recorded = tables.includes("_prisma_migrations") ? (sqlite.prepare("SELECT migration_name FROM _prisma_migrations").pluck().all() as string[]) : null;
    const refusal = foreignDatabaseRefusal("sqlite", tables, recorded);
    if (refusal) throw refusal;
    sqlite.pragma("journal_mode = WAL");
    const apply = sqlite.transaction(() => {
      sqlite.exec(SQLITE_MIGRATIONS_TABLE);
      const applied = appliedInSqlite(sqlite);
      const record = sqlite.prepare(
        "INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES (?, ?, ?, ?, ?, 1)",
      );
      for (const name of committedMigrations("sqlite").filter((migration) => !applied.has(migration))) {
        const { sql, checksum } = migrationSql("sqlite", name);
        const startedAt = stamp();
        sqlite.exec(sql);
        record.run(randomUUID(), checksum, stamp(), name, startedAt);
      }
    });
    apply.immediate();
  } catch (error) {
    throw unavailableWhenBusy(error, "sqlite", MIGRATION_LOCK_TIMEOUT_MS);
  } finally {
    sqlite.close();
  }
}

/**
 * The refusal of a database that holds another application's tables, before Baton creates any,
 * or null: one with no tables (but perhaps an empty `_prisma_migrations`), or Baton's own (every
 * migration its `_prisma_migrations` recorded, `recorded`, is Baton's), may be migrated. A DATABASE_URL naming another Prisma application's
 * database once got Baton's tables, and Baton's migrations in that application's
 * `_prisma_migrations`, which its own `prisma migrate` then found diverged. Both engines.
 */
function foreignDatabaseRefusal(engine: Engine, tables: string[], recorded: string[] | null): Conflict | null {
  if (tables.every((table) => table === "_prisma_migrations")) return null;
  const baton = new Set(committedMigrations(engine));
  if (recorded?.length && recorded.every((name) => baton.has(name))) return null;
  const shown = tables.slice(0, 5).join(", ") + (tables.length > 5 ? ` and ${tables.length - 5} more` : "");
  return new Conflict(
    `the database holds another application's tables (${shown}); Baton creates its tables only in an empty database or one of its own, so nothing was created or changed: check DATABASE_URL (or BATON_DATA_DIR)`,
  );
}

/**
 * insufficient_privilege while migrating (a database or schema another role owns: "permission
 * denied for schema public") as what to do about it; any other error as it is.
 */
function withoutPrivilegeExplained(error: unknown): unknown {
  if ((error as { code?: unknown } | null)?.code !== "42501") return error;
  return new Unavailable(
    `Baton's database user cannot create its tables here (${(error as Error).message}): make that user the database's owner (CREATE DATABASE baton OWNER baton), as the README's team set-up does; nothing was created`,
  );
}

async function refuseForeignDatabase(client: pg.Client): Promise<void> {
  const { rows } = await client.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename");
  const tables = rows.map((row) => row.name);
  const recorded = tables.includes("_prisma_migrations") ? (await client.query<{ name: string }>("SELECT migration_name AS name FROM _prisma_migrations")).rows.map((row) => row.name) : null;
  const refusal = foreignDatabaseRefusal("postgres", tables, recorded);
  if (refusal) throw refusal;
}

/**
 * Applies the pending PostgreSQL migrations inside the transaction `client` has open, under the
 * migration lock (held until that transaction ends), after refusing another application's
 * database: so a caller can keep its own work in the same transaction (copy-data migrates and
 * fills its target in one, and a refused target is left exactly as it was).
 */
export async function migratePostgresIn(client: pg.Client): Promise<void> {
  await client.query(`SET LOCAL lock_timeout = ${MIGRATION_LOCK_TIMEOUT_MS}`);
  try {
    await client.query("SELECT pg_advisory_xact_lock($1)", [POSTGRES_MIGRATION_LOCK]);
  } catch (error) {
    // lock_not_available: another process is still migrating (a migration that rewrites a table takes a while).
    if ((error as { code?: unknown }).code !== "55P03") throw error;
    throw new Unavailable(`another Baton process has been applying migrations to this database for ${MIGRATION_LOCK_TIMEOUT_MS / 1000} s; start again once it is done`);
  }
  await refuseForeignDatabase(client);
  try {
    await client.query(POSTGRES_MIGRATIONS_TABLE);
  } catch (error) {
    throw withoutPrivilegeExplained(error);
  }
  const applied = await appliedInPostgres(client);
  for (const name of committedMigrations("postgres").filter((migration) => !applied.has(migration))) {
    const { sql, checksum } = migrationSql("postgres", name);
    const startedAt = new Date();
    await client.query(sql).catch((error: unknown) => {
      throw withoutPrivilegeExplained(error);
    });
    await client.query(
      "INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES ($1, $2, now(), $3, $4, 1)",
      [randomUUID(), checksum, name, startedAt],
    );
  }
}

async function migratePostgres(url: string): Promise<void> {
  await withTransaction(url, migratePostgresIn);
}
