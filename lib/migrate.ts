import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { databaseFile, databaseUrl } from "./config";

const projectRoot = path.resolve(import.meta.dirname, "..");
const migrationsDir = path.join(projectRoot, "prisma", "migrations");

function committedMigrations(): string[] {
  return fs
    .readdirSync(migrationsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** Names of committed migrations the database has not applied yet (all of them for a new file). */
export function pendingMigrations(url: string = databaseUrl()): string[] {
  const file = databaseFile(url);
  if (!fs.existsSync(file)) return committedMigrations();
  const sqlite = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const hasTable = sqlite
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'")
      .get();
    if (!hasTable) return committedMigrations();
    const applied = new Set(
      sqlite
        .prepare("SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL")
        .all()
        .map((row) => (row as { migration_name: string }).migration_name),
    );
    return committedMigrations().filter((name) => !applied.has(name));
  } finally {
    sqlite.close();
  }
}

/**
 * Applies committed migrations with `prisma migrate deploy` when any is pending. Checking first
 * keeps start-up fast (the MCP server must answer within 400 ms) on an up-to-date database.
 */
export function ensureMigrated(url: string = databaseUrl()): void {
  if (pendingMigrations(url).length === 0) return;
  fs.mkdirSync(path.dirname(databaseFile(url)), { recursive: true });
  execFileSync(path.join(projectRoot, "node_modules", ".bin", "prisma"), ["migrate", "deploy"], {
    cwd: projectRoot,
    env: { ...process.env, DATABASE_URL: url, CHECKPOINT_DISABLE: "1", PRISMA_HIDE_UPDATE_MESSAGE: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
}
