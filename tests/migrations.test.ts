import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { databaseFile } from "../lib/config";
import { database } from "../lib/database";
import { ensureMigrated, pendingMigrations } from "../lib/database/migrate";
import { postgresSchemaOf } from "../scripts/postgres-schema";
import { rowsOf } from "./support/rows";

const engine = database().engine;
const root = path.resolve(import.meta.dirname, "..");

/**
 * The migrated schema keeps what Prisma cannot see: the change feed's and the search index's
 * triggers. Prisma redefines a SQLite table by copying it and dropping the old one, which drops
 * its triggers too; a migration that does so must create them again, and this test says when one
 * did not.
 */
describe("the migrated database", () => {
  it.runIf(engine === "sqlite")("has every migration applied and every trigger that feeds the change feed and the search index", async () => {
    expect(await pendingMigrations()).toEqual([]);
    const sqlite = new Database(databaseFile(), { readonly: true });
    try {
      const triggers = sqlite.prepare("SELECT name, tbl_name AS tableName FROM sqlite_master WHERE type = 'trigger' ORDER BY name").all();
      expect(triggers).toEqual([
        { name: "changes_agent_created", tableName: "agents" },
        { name: "changes_agent_updated", tableName: "agents" },
        { name: "changes_entry_created", tableName: "handoff_entries" },
        { name: "changes_handoff_created", tableName: "handoffs" },
        { name: "changes_handoff_updated", tableName: "handoffs" },
        { name: "changes_shift_handoff_created", tableName: "handoff_records" },
        { name: "changes_shift_handoff_updated", tableName: "handoff_records" },
        { name: "search_entry_deleted", tableName: "handoff_entries" },
        { name: "search_entry_updated", tableName: "handoff_entries" },
        { name: "search_handoff_created", tableName: "handoffs" },
        { name: "search_handoff_retitled", tableName: "handoffs" },
        { name: "search_text_created", tableName: "handoff_search_texts" },
        { name: "search_text_deleted", tableName: "handoff_search_texts" },
        { name: "search_text_updated", tableName: "handoff_search_texts" },
        { name: "unread_chat_cursor_moved", tableName: "handoffs" },
        { name: "unread_code_cursor_moved", tableName: "handoffs" },
        { name: "unread_entry_created", tableName: "handoff_entries" },
        { name: "unread_status_changed", tableName: "handoffs" },
      ]);
    } finally {
      sqlite.close();
    }
  });

  it.runIf(engine === "postgres")("has every migration applied and the triggers that feed the change feed (and wake other instances) and the search index", async () => {
    expect(await pendingMigrations()).toEqual([]);
    const triggers = await rowsOf<{ name: string; tableName: string }>(
      `SELECT DISTINCT trigger_name AS name, event_object_table AS "tableName" FROM information_schema.triggers
       WHERE trigger_schema = current_schema() AND trigger_name LIKE 'changes_%' ORDER BY 1`,
    );
    expect(triggers).toEqual([
      { name: "changes_agent_written", tableName: "agents" },
      { name: "changes_entry_created", tableName: "handoff_entries" },
      { name: "changes_handoff_written", tableName: "handoffs" },
      { name: "changes_notify", tableName: "changes" },
      { name: "changes_shift_handoff_written", tableName: "handoff_records" },
    ]);
    const search = await rowsOf("SELECT 1 FROM information_schema.triggers WHERE trigger_schema = current_schema() AND trigger_name LIKE 'search_%'");
    expect(search.length).toBeGreaterThan(0);
  });

  it.runIf(engine === "postgres")("has the same tables and columns as SQLite's, both made from prisma/schema.prisma", async () => {
    // Generated columns are PostgreSQL's own (an entry's stored search vector), as FTS5's tables are SQLite's.
    const columns = await rowsOf<{ table: string; column: string }>(
      `SELECT table_name AS "table", column_name AS "column" FROM information_schema.columns
       WHERE table_schema = current_schema() AND table_name <> '_prisma_migrations' AND is_generated = 'NEVER' ORDER BY 1, 2`,
    );
    const sqlite = new Database(process.env.BATON_TEMPLATE_DB!, { readonly: true });
    try {
      const tables = new Set(columns.map((column) => column.table));
      const sqliteColumns = [...tables].flatMap((table) =>
        (sqlite.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]).map((column) => ({ table, column: column.name })),
      );
      expect(sqliteColumns.sort((a, b) => `${a.table}.${a.column}`.localeCompare(`${b.table}.${b.column}`))).toEqual(
        [...columns].sort((a, b) => `${a.table}.${a.column}`.localeCompare(`${b.table}.${b.column}`)),
      );
      const sqliteTables = (sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%search%' AND name <> '_prisma_migrations'").all() as { name: string }[]).map((row) => row.name);
      expect([...tables].filter((table) => !table.includes("search")).sort()).toEqual(sqliteTables.sort());
    } finally {
      sqlite.close();
    }
  });
});

describe("PostgreSQL's schema", () => {
  it("is generated from prisma/schema.prisma and current (npm run db:postgres-schema writes it)", () => {
    const generated = fs.readFileSync(path.join(root, "prisma", "postgres", "schema.prisma"), "utf8");
    expect(generated).toBe(postgresSchemaOf(fs.readFileSync(path.join(root, "prisma", "schema.prisma"), "utf8")));
  });
});

/** The migrations folder up to (not including) the first whose name ends with `name`, copied. */
function migrationsBefore(name: string): string {
  const source = path.resolve(import.meta.dirname, "..", "prisma", "migrations");
  const target = fs.mkdtempSync(path.join(os.tmpdir(), "baton-migrations-"));
  const names = fs.readdirSync(source).filter((entry) => fs.statSync(path.join(source, entry)).isDirectory()).sort();
  const stop = names.findIndex((entry) => entry.endsWith(name));
  for (const entry of names.slice(0, stop)) fs.cpSync(path.join(source, entry), path.join(target, entry), { recursive: true });
  return target;
}

describe.runIf(engine === "sqlite")("the full-text search migration", () => {
  it("builds the index for the handoffs and entries that existed before it", async () => {
    // A database as it stood before the migration, with rows in it, then every migration applied.
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "baton-before-search-"));
    const url = `file:${path.join(folder, "baton.db")}`;
    const earlier = migrationsBefore("_full_text_search");
    const sqlite = new Database(databaseFile(url));
    try {
      for (const name of fs.readdirSync(earlier).sort()) sqlite.exec(fs.readFileSync(path.join(earlier, name, "migration.sql"), "utf8"));
      sqlite.exec(`CREATE TABLE "_prisma_migrations" ("id" TEXT PRIMARY KEY NOT NULL, "checksum" TEXT NOT NULL, "finished_at" DATETIME,
        "migration_name" TEXT NOT NULL, "logs" TEXT, "rolled_back_at" DATETIME, "started_at" DATETIME NOT NULL DEFAULT current_timestamp,
        "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0)`);
      const record = sqlite.prepare("INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name) VALUES (?, '', current_timestamp, ?)");
      for (const name of fs.readdirSync(earlier)) record.run(name, name);
      sqlite.prepare("INSERT INTO handoffs (id, title) VALUES ('hof_BeforeSearch0000000001', 'Kinkajou rollout'), ('hof_BeforeSearch0000000002', 'Other')").run();
      sqlite
        .prepare("INSERT INTO handoff_entries (handoff_id, from_client, type, content) VALUES ('hof_BeforeSearch0000000002', 'chat', 'context', ?)")
        .run("the capybara schema moves first");
    } finally {
      sqlite.close();
    }

    await ensureMigrated(url);

    const migrated = new Database(databaseFile(url), { readonly: true });
    try {
      const find = (table: string, query: string) =>
        migrated.prepare(`SELECT rowid FROM ${table} WHERE ${table} MATCH ?`).all(query).length;
      expect(find("handoff_search", "kinkajou")).toBe(1);
      expect(find("entry_search", "capybara")).toBe(1);
      expect(migrated.prepare("SELECT COUNT(*) AS owners FROM entry_search_owners").get()).toEqual({ owners: 1 });
    } finally {
      migrated.close();
      fs.rmSync(folder, { recursive: true, force: true });
      fs.rmSync(earlier, { recursive: true, force: true });
    }
  });
});

describe.runIf(engine === "sqlite")("the entry numbers migration", () => {
  it("numbers the entries that existed before it, per thread in order, and raises no change for it", async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "baton-before-numbers-"));
    const url = `file:${path.join(folder, "baton.db")}`;
    const earlier = migrationsBefore("_entry_numbers_answers_and_attention_marks");
    const sqlite = new Database(databaseFile(url));
    try {
      for (const name of fs.readdirSync(earlier).sort()) sqlite.exec(fs.readFileSync(path.join(earlier, name, "migration.sql"), "utf8"));
      sqlite.exec(`CREATE TABLE "_prisma_migrations" ("id" TEXT PRIMARY KEY NOT NULL, "checksum" TEXT NOT NULL, "finished_at" DATETIME,
        "migration_name" TEXT NOT NULL, "logs" TEXT, "rolled_back_at" DATETIME, "started_at" DATETIME NOT NULL DEFAULT current_timestamp,
        "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0)`);
      const record = sqlite.prepare("INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name) VALUES (?, '', current_timestamp, ?)");
      for (const name of fs.readdirSync(earlier)) record.run(name, name);
      sqlite.prepare("INSERT INTO handoffs (id, title) VALUES ('hof_BeforeNumbers00000001', 'One'), ('hof_BeforeNumbers00000002', 'Two')").run();
      const entry = sqlite.prepare("INSERT INTO handoff_entries (handoff_id, from_client, type, content) VALUES (?, 'chat', 'context', ?)");
      // Interleaved: seqs are global, numbers are per thread.
      for (const [id, text] of [["1", "a"], ["2", "b"], ["1", "c"], ["2", "d"], ["1", "e"]]) entry.run(`hof_BeforeNumbers0000000${id}`, text);
    } finally {
      sqlite.close();
    }
    const changesBefore = (db: Database.Database) => (db.prepare("SELECT COUNT(*) AS count FROM changes").get() as { count: number }).count;
    const before = new Database(databaseFile(url), { readonly: true });
    const changeCount = changesBefore(before);
    before.close();

    await ensureMigrated(url);

    const migrated = new Database(databaseFile(url), { readonly: true });
    try {
      expect(migrated.prepare("SELECT content, number FROM handoff_entries ORDER BY seq").all()).toEqual([
        { content: "a", number: 1 },
        { content: "b", number: 1 },
        { content: "c", number: 2 },
        { content: "d", number: 2 },
        { content: "e", number: 3 },
      ]);
      expect(migrated.prepare("SELECT id, last_number FROM handoffs ORDER BY id").all()).toEqual([
        { id: "hof_BeforeNumbers00000001", last_number: 3 },
        { id: "hof_BeforeNumbers00000002", last_number: 2 },
      ]);
      expect(changesBefore(migrated)).toBe(changeCount);
    } finally {
      migrated.close();
      fs.rmSync(folder, { recursive: true, force: true });
      fs.rmSync(earlier, { recursive: true, force: true });
    }
  });
});
