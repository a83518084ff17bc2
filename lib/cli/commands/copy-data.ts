import "server-only";
import { databaseUrl, describeDatabase } from "../../config";
import { copyData } from "../../database/copy-data";
import { withoutCredentials } from "../../url-credentials";
import { quotedField } from "../../validation";
import { parseCommandArgs, usageError } from "../args";

const USAGE = `usage: baton copy-data --to postgresql://USER:PASSWORD@HOST:PORT/DATABASE

Copies this desk (the SQLite database at DATABASE_URL or in BATON_DATA_DIR, and the shift
documents and kept bundles its folder holds as files) into an EMPTY PostgreSQL database, in one
transaction, then checks every table's row count and content hash. It refuses a database that
already holds rows, so running it twice copies nothing twice. Afterwards start Baton with
DATABASE_URL set to the same postgresql:// URL.`;

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommandArgs("copy-data", USAGE, args, { options: { to: { type: "string" } } });
  if (typeof parsed === "number") return parsed;
  const to = parsed.values.to;
  if (!to) return usageError("copy-data", "give --to postgresql://…", USAGE);
  if (!/^postgres(ql)?:\/\//i.test(to)) {
    return usageError("copy-data", `--to must be a postgresql:// URL (the empty PostgreSQL database to copy into), got "${quotedField(withoutCredentials(to, { keepUserName: true, standIn: "…" }))}"`, USAGE);
  }
  const from = databaseUrl();
  try {
    const result = await copyData({ from, to });
    process.stdout.write(`copied ${describeDatabase(from)} to ${describeDatabase(to)}\n`);
    for (const table of result.tables) process.stdout.write(`  ${table.table.padEnd(22)} ${String(table.rows).padStart(8)} rows  sha256 ${table.hash.slice(0, 16)}  verified\n`);
    const rows = result.tables.reduce((sum, table) => sum + table.rows, 0);
    process.stdout.write(`${rows} rows in ${result.tables.length} tables, ${result.filesRead} documents and bundles read from files; counts and hashes match\n`);
    return 0;
  } catch (error) {
    // A refusal (not empty, not a postgresql:// URL) or a failure to connect: said the same way.
    process.stderr.write(`baton copy-data: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
