/**
 * Moving a desk to a team server: copies everything in a SQLite database (and the documents and
 * bundles its data folder holds as files) into an empty PostgreSQL database in one transaction,
 * then verifies row counts and content hashes table by table. `baton copy-data --to …` is its door.
 */
import "server-only";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import type pg from "pg";
import { databaseFile, dataDir } from "../config";
import { Conflict, Invalid } from "../errors";
import { INDEX_PENDING_ENTRIES } from "../search/pending";
import { BUSY_TIMEOUT_MS } from "./busy";
import { engineOf } from "./engine";
import { ensureMigrated, migratePostgresIn } from "./migrate";
import { withTransaction } from "./postgres";

export type CopyDataOptions = { from: string; to: string; dataFolder?: string };
export type CopiedTable = { table: string; rows: number; hash: string };
export type CopyDataResult = { tables: CopiedTable[]; filesRead: number };

/** Rows per INSERT: well under PostgreSQL's 65,535 parameters for the widest table. */
const BATCH_ROWS = 500;
const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

type Column = { name: string; isDate: boolean; serial: boolean };
type Table = { name: string; columns: Column[]; key: string[]; parents: string[] };

/** The target's tables (Prisma's, as migrated), with columns, primary key and the tables they reference. */
async function tablesOf(client: pg.Client): Promise<Table[]> {
  const { rows: columns } = await client.query<{ table_name: string; column_name: string; data_type: string; column_default: string | null }>(
    `SELECT table_name, column_name, data_type, column_default FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name <> '_prisma_migrations' AND is_generated = 'NEVER' ORDER BY table_name, ordinal_position`,
  );
  const { rows: keys } = await client.query<{ table_name: string; column_name: string }>(
    `SELECT tc.table_name, kcu.column_name FROM information_schema.table_constraints tc
     JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = tc.constraint_name AND kcu.table_schema = tc.table_schema
     WHERE tc.table_schema = current_schema() AND tc.constraint_type = 'PRIMARY KEY' ORDER BY kcu.ordinal_position`,
  );
  const { rows: references } = await client.query<{ child: string; parent: string }>(
    `SELECT conrelid::regclass::text AS child, confrelid::regclass::text AS parent FROM pg_constraint
     WHERE contype = 'f' AND connamespace = current_schema()::regnamespace`,
  );
  const byName = new Map<string, Table>();
  for (const column of columns) {
    const table = byName.get(column.table_name) ?? { name: column.table_name, columns: [], key: [], parents: [] };
    table.columns.push({ name: column.column_name, isDate: column.data_type.startsWith("timestamp"), serial: column.column_default?.startsWith("nextval(") ?? false });
    byName.set(column.table_name, table);
  }
  for (const key of keys) byName.get(key.table_name)?.key.push(key.column_name);
  const unquote = (name: string) => name.replace(/^"|"$/g, "");
  for (const reference of references) {
    const child = byName.get(unquote(reference.child));
    if (child && unquote(reference.parent) !== child.name) child.parents.push(unquote(reference.parent));
  }
  // Parents before children, so every foreign key finds its row.
  const ordered: Table[] = [];
  const visit = (table: Table, path: Set<string>) => {
    if (ordered.includes(table) || path.has(table.name)) return;
    path.add(table.name);
    for (const parent of table.parents) {
      const found = byName.get(parent);
      if (found) visit(found, path);
    }
    ordered.push(table);
  };
  for (const table of [...byName.values()].sort((a, b) => a.name.localeCompare(b.name))) visit(table, new Set());
  return ordered;
}

/** One value as both engines give it back: dates as UTC instants in the stored form. */
function normalized(value: unknown, isDate: boolean): unknown {
  if (value === null || value === undefined) return null;
  if (isDate) {
    const text = String(value);
    const instant = /[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text.replace(" ", "T")}Z`;
    return new Date(instant).toISOString();
  }
  if (typeof value === "bigint") return Number(value);
  return value;
}

function hashRows(table: Table, rows: Record<string, unknown>[]): string {
  const hash = createHash("sha256");
  for (const row of rows) hash.update(`${JSON.stringify(table.columns.map((column) => normalized(row[column.name], column.isDate)))}\n`);
  return hash.digest("hex");
}

/**
 * Fills what older rows kept only as files: a shift handoff's document (file_path) and an
 * artifact's bytes (<data folder>/artifacts/blobs/<id>). Answers how many files it read.
 */
function withFileContents(table: Table, rows: Record<string, unknown>[], dataFolder: string): number {
  let read = 0;
  const fill = (row: Record<string, unknown>, column: string, file: string | null) => {
    if (row[column] !== null || !file || !fs.existsSync(file)) return;
    row[column] = fs.readFileSync(file, "utf8");
    read++;
  };
  if (table.name === "handoff_records") for (const row of rows) fill(row, "document", row.file_path as string | null);
  if (table.name === "artifacts") for (const row of rows) fill(row, "content", path.join(dataFolder, "artifacts", "blobs", String(row.id)));
  return read;
}

/** The highest value of `column` among the copied rows (0 for none). */
function highestIdOf(rows: Record<string, unknown>[], column: string): number {
  return rows.reduce((highest, row) => Math.max(highest, Number(row[column] ?? 0)), 0);
}

/** The last id SQLite handed out for `table` (its AUTOINCREMENT counter, which outlives deleted rows), or 0. */
function sourceCounterOf(source: Database.Database, table: string): number {
  const hasCounters = source.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'").get() !== undefined;
  if (!hasCounters) return 0;
  const row = source.prepare("SELECT seq FROM sqlite_sequence WHERE name = ?").get(table) as { seq: number | bigint } | undefined;
  return row ? Number(row.seq) : 0;
}

export async function copyData(options: CopyDataOptions): Promise<CopyDataResult> {
  if (engineOf(options.from) !== "sqlite") throw new Invalid("copy-data copies from a SQLite database (a file: URL)", { from: ["not a SQLite file: URL"] });
  if (engineOf(options.to) !== "postgres") throw new Invalid("--to must be a postgresql:// URL", { to: ["not a postgresql:// URL"] });
  const sourceFile = databaseFile(options.from);
  if (!fs.existsSync(sourceFile)) throw new Invalid(`there is no database at ${sourceFile}`, { from: ["no such file"] });
  await ensureMigrated(options.from);
  indexPendingEntriesOf(sourceFile);
  const dataFolder = options.dataFolder ?? dataDir();
  const source = new Database(sourceFile, { readonly: true, fileMustExist: true });
  try {
    return await withTransaction(options.to, (target) => copyInto(target, source, dataFolder));
  } finally {
    source.close();
  }
}

/**
 * Indexes the source's pending entries (lib/search/pending.ts) before it is read: the copy brings
 * the source's owner rows, PostgreSQL's record of what its index holds.
 */
function indexPendingEntriesOf(file: string): void {
  const source = new Database(file, { timeout: BUSY_TIMEOUT_MS });
  try {
    source.transaction(() => INDEX_PENDING_ENTRIES.forEach((statement) => source.exec(statement))).immediate();
  } finally {
    source.close();
  }
}

/** The copy, in the caller's transaction on the target: nothing of it is kept unless all of it verified. */
async function copyInto(target: pg.Client, source: Database.Database, dataFolder: string): Promise<CopyDataResult> {
  // Another application's database is refused before anything is created, in the transaction that
  // migrates and fills it: a refused target is left exactly as it was. The emptiness of Baton's
  // tables is checked after, under their locks.
  await migratePostgresIn(target);
  const tables = await tablesOf(target);
  // Nothing else may write while the copy decides the target is empty and fills it.
  await target.query(`LOCK TABLE ${tables.map((table) => quote(table.name)).join(", ")} IN EXCLUSIVE MODE`);
  const occupied: string[] = [];
  for (const table of tables) {
    const { rows } = await target.query<{ any: number }>(`SELECT COUNT(*)::int AS any FROM (SELECT 1 FROM ${quote(table.name)} LIMIT 1) t`);
    if (rows[0].any > 0) occupied.push(table.name);
  }
  if (occupied.length > 0) {
    throw new Conflict(`the target database is not empty (${occupied.join(", ")} hold rows); copy-data writes only into an empty database, so nothing was copied`);
  }
  const copied: CopiedTable[] = [];
  let filesRead = 0;
  for (const table of tables) {
    const names = table.columns.map((column) => column.name);
    const order = table.key.length ? ` ORDER BY ${table.key.map(quote).join(", ")}` : "";
    const rows = source.prepare(`SELECT ${names.map(quote).join(", ")} FROM ${quote(table.name)}${order}`).all() as Record<string, unknown>[];
    filesRead += withFileContents(table, rows, dataFolder);
    // The triggers (change feed, search index) would add rows of their own: the copy brings the source's.
    await target.query(`ALTER TABLE ${quote(table.name)} DISABLE TRIGGER USER`);
    for (let start = 0; start < rows.length; start += BATCH_ROWS) {
      const batch = rows.slice(start, start + BATCH_ROWS);
      const values: unknown[] = [];
      const tuples = batch.map((row) => `(${names.map((name) => `$${values.push(row[name] ?? null)}`).join(", ")})`);
      await target.query(`INSERT INTO ${quote(table.name)} (${names.map(quote).join(", ")}) VALUES ${tuples.join(", ")}`, values);
    }
    await target.query(`ALTER TABLE ${quote(table.name)} ENABLE TRIGGER USER`);
    for (const column of table.columns.filter((candidate) => candidate.serial)) {
      // The counter goes on where the source's stopped, not after the highest id still stored: ids
      // of deleted rows are never handed out again (a change's seq, which the webhook cursor and
      // browsers resume after, a delivery's X-Baton-Delivery). is_called false only for a counter
      // never used: the next nextval answers 1.
      const used = Math.max(highestIdOf(rows, column.name), sourceCounterOf(source, table.name));
      await target.query("SELECT setval(pg_get_serial_sequence($1, $2), $3, $4)", [quote(table.name), column.name, Math.max(used, 1), used > 0]);
    }
    const { rows: stored } = await target.query<Record<string, unknown>>(`SELECT ${names.map(quote).join(", ")} FROM ${quote(table.name)}${order}`);
    const hash = hashRows(table, rows);
    if (stored.length !== rows.length || hashRows(table, stored) !== hash) {
      throw new Conflict(`verification failed for ${table.name}: ${rows.length} rows read, ${stored.length} stored, or their content differs; nothing was copied`);
    }
    copied.push({ table: table.name, rows: rows.length, hash });
  }
  return { tables: copied, filesRead };
}
