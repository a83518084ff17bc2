import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Each table has one owner module, and only lib/database opens database connections: read from
 * the source itself. Every SQL statement in lib/ that writes a table (INSERT, UPDATE, DELETE) must
 * sit in the table's owner; every table the schema and migrations create must have an owner; no
 * module outside lib/database may import a database driver. A job that spans tables (the secrets
 * sweep, lib/jobs) asks each owner to write its own rows.
 */
const root = path.resolve(import.meta.dirname, "..");

/** The owner of each table: a folder under lib/ (its module). */
const OWNERS: Record<string, string> = {
  handoffs: "handoffs",
  handoff_entries: "handoffs",
  handoff_unread: "handoffs",
  agents: "agents",
  handoff_records: "agents",
  handoff_sources: "formats",
  artifacts: "formats",
  changes: "changes",
  handoff_search_texts: "search",
  entry_search_owners: "search",
  entry_search: "search",
  handoff_search: "search",
  access_tokens: "auth",
  sessions: "auth",
  oauth_clients: "oauth",
  oauth_codes: "oauth",
  oauth_tokens: "oauth",
  repository_links: "pickup",
  webhooks: "webhooks",
  webhook_deliveries: "webhooks",
  webhook_attempts: "webhooks",
  webhook_cursor: "webhooks",
  webhook_waiting: "webhooks",
  attention_marks: "dashboard",
  _prisma_migrations: "database",
};
const DRIVERS = ["better-sqlite3", "pg"];

function sourcesUnder(folder: string): string[] {
  return fs.readdirSync(folder, { withFileTypes: true, recursive: true }).flatMap((entry) => {
    const file = path.join(entry.parentPath, entry.name);
    return entry.isFile() && /\.(ts|tsx|mjs)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [file] : [];
  });
}

/** `lib/handoffs/store.ts` → `handoffs`; `lib/queries.ts` → `queries.ts`. */
const moduleOf = (file: string) => path.relative(path.join(root, "lib"), file).split(path.sep)[0];

/** The tables the schema and the migrations create (migrations' rebuild copies `new_…` aside). */
function createdTables(): Set<string> {
  const tables = new Set<string>();
  for (const match of fs.readFileSync(path.join(root, "prisma", "schema.prisma"), "utf8").matchAll(/@@map\("([a-z_]+)"\)/g)) tables.add(match[1]);
  const migrations = fs.readdirSync(path.join(root, "prisma"), { recursive: true, withFileTypes: true }).filter((entry) => entry.name.endsWith(".sql"));
  for (const file of migrations.map((entry) => path.join(entry.parentPath, entry.name))) {
    for (const match of fs.readFileSync(file, "utf8").matchAll(/CREATE (?:VIRTUAL )?TABLE (?:IF NOT EXISTS )?"?([a-z_]+)"?/gi)) if (!match[1].startsWith("new_")) tables.add(match[1]);
  }
  return tables;
}

/** Every write statement of `text` naming a known table: the table and the line. */
function writesIn(text: string): { table: string; line: number }[] {
  const found: { table: string; line: number }[] = [];
  for (const match of text.matchAll(/\b(?:INSERT(?:\s+OR\s+[A-Z]+)?\s+INTO|UPDATE|DELETE\s+FROM)\s+"?([a-z_]+)"?/g)) {
    if (!(match[1] in OWNERS)) continue;
    found.push({ table: match[1], line: text.slice(0, match.index).split("\n").length });
  }
  return found;
}

describe("one owner per table", () => {
  it("every table the schema and migrations create has an owner", () => {
    expect([...createdTables()].filter((table) => !(table in OWNERS))).toEqual([]);
  });

  it("no module writes a table another module owns", () => {
    const strays: string[] = [];
    for (const file of sourcesUnder(path.join(root, "lib"))) {
      const owner = moduleOf(file);
      for (const { table, line } of writesIn(fs.readFileSync(file, "utf8"))) {
        if (OWNERS[table] !== owner) strays.push(`${path.relative(root, file)}:${line} writes ${table}, which lib/${OWNERS[table]} owns`);
      }
    }
    expect(strays).toEqual([]);
  });

  it("only lib/database opens database connections (imports a driver)", () => {
    const strays: string[] = [];
    for (const file of sourcesUnder(path.join(root, "lib"))) {
      if (moduleOf(file) === "database") continue;
      const text = fs.readFileSync(file, "utf8");
      for (const driver of DRIVERS) {
        // A type-only import opens nothing.
        if (new RegExp(`^import (?!type )[^;]*from "${driver}";`, "m").test(text)) strays.push(`${path.relative(root, file)} imports ${driver}`);
      }
    }
    expect(strays).toEqual([]);
  });

  it("the check itself sees writes however they are spelled, and not the English word", () => {
    expect(writesIn('await tx.run("UPDATE handoff_entries SET content = ? WHERE seq = ?", [a, b]);')).toEqual([{ table: "handoff_entries", line: 1 }]);
    expect(writesIn("const sql = `INSERT INTO\n  artifacts (id) VALUES (?)`;")).toEqual([{ table: "artifacts", line: 1 }]);
    expect(writesIn("FOR UPDATE on the row")).toEqual([]);
  });
});
