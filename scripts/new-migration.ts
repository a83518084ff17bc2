/**
 * Authors a migration from the difference between the committed migrations and
 * prisma/schema.prisma: `npm run db:new-migration -- <name>`, for SQLite, then PostgreSQL's
 * generated schema and migration (scripts/postgres-schema.ts) from the same schema.
 * `prisma migrate dev` cannot run with the JavaScript schema engine, so this deploys the
 * existing migrations into a scratch database, introspects it and diffs that against the schema.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("usage: npm run db:new-migration -- <name in snake_case>");
  process.exit(2);
}

const root = path.resolve(import.meta.dirname, "..");
const migrationsDir = path.join(root, "prisma", "migrations");
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "baton-migration-"));
const prismaBin = path.join(root, "node_modules", ".bin", "prisma");
const env = { ...process.env, DATABASE_URL: `file:${path.join(scratch, "base.db")}`, CHECKPOINT_DISABLE: "1" };
const prisma = (...args: string[]) => execFileSync(prismaBin, args, { cwd: root, env, encoding: "utf8" });

/**
 * The pulled schema without virtual tables (the FTS5 search index) and the shadow tables SQLite
 * keeps for them: migrations create those by hand, Prisma models none of them, and a diff from a
 * schema that has them would drop them.
 */
function withoutVirtualTables(schema: string, databaseFile: string): string {
  const sqlite = new Database(databaseFile, { readonly: true });
  try {
    const rows = sqlite.prepare("SELECT name FROM pragma_table_list WHERE schema = 'main' AND type IN ('virtual', 'shadow')").all() as { name: string }[];
    const skipped = new Set(rows.map((row) => row.name));
    return schema.replace(/(?:^\/\/\/.*\n)*^model (\w+) \{\n[\s\S]*?^\}\n?/gm, (block, name: string) => (skipped.has(name) ? "" : block));
  } finally {
    sqlite.close();
  }
}

try {
  const existing = fs.existsSync(migrationsDir)
    ? fs.readdirSync(migrationsDir).filter((entry) => fs.statSync(path.join(migrationsDir, entry)).isDirectory())
    : [];
  let from = ["--from-empty"];
  if (existing.length > 0) {
    prisma("migrate", "deploy");
    // db pull prints a banner before the schema; the schema starts at its first block.
    const pulled = prisma("db", "pull", "--print");
    const baseSchema = path.join(scratch, "base.prisma");
    fs.writeFileSync(baseSchema, withoutVirtualTables(pulled.slice(pulled.search(/^(generator|datasource) /m)), path.join(scratch, "base.db")));
    from = ["--from-schema-datamodel", baseSchema];
  }
  const sql = prisma("migrate", "diff", ...from, "--to-schema-datamodel", "prisma/schema.prisma", "--script");
  if (/This is an empty migration/.test(sql)) {
    console.log("schema.prisma matches the migrations: nothing to write");
    process.exit(0);
  }
  const stamp = new Date().toISOString().replace(/[-:T]/g, "").slice(0, 14);
  const target = path.join(migrationsDir, `${stamp}_${name}`);
  fs.mkdirSync(target, { recursive: true });
  fs.writeFileSync(path.join(target, "migration.sql"), sql);
  const lock = path.join(migrationsDir, "migration_lock.toml");
  if (!fs.existsSync(lock)) fs.writeFileSync(lock, 'provider = "sqlite"\n');
  console.log(`wrote ${path.relative(root, target)}/migration.sql`);
  // Prisma redefines a SQLite table by dropping it, and its triggers (the change feed's, the search index's) go with it.
  const dropped = [...sql.matchAll(/DROP TABLE "([^"]+)"/g)].map((match) => match[1]);
  if (dropped.length > 0) {
    console.warn(
      `note: it redefines ${dropped.join(", ")}; recreate their change-feed and search triggers at the end of the migration ` +
        "(see prisma/migrations/*_change_feed and *_full_text_search; tests/migrations.test.ts checks)",
    );
  }
  execFileSync(path.join(root, "node_modules", ".bin", "tsx"), [path.join(root, "scripts", "postgres-schema.ts"), name], { cwd: root, stdio: "inherit" });
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
