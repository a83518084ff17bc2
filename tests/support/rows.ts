import { read, type Params } from "../../lib/database";

/** Rows straight from the test file's database (either engine), for checking what was stored. */
export function rowsOf<Row = Record<string, unknown>>(text: string, params: Params = []): Promise<Row[]> {
  return read((tx) => tx.all<Row>(text, params));
}

/** How many rows `table` holds (optionally `WHERE <where>` with `?` parameters). */
export async function countRows(table: string, where = "", params: Params = []): Promise<number> {
  const [row] = await rowsOf<{ count: number }>(`SELECT COUNT(*) AS count FROM ${table}${where ? ` WHERE ${where}` : ""}`, params);
  return row.count;
}

/**
 * Every row of every table as text, on PostgreSQL, for checking a secret is stored nowhere: its
 * files are the server's, not in the data folder (on SQLite a test reads the database file and
 * its WAL themselves).
 */
export function everyRowAsText(): Promise<string> {
  return read(async (tx) => {
    const tables = await tx.all<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'");
    const texts: string[] = [];
    for (const { name } of tables) texts.push(JSON.stringify(await tx.all(`SELECT * FROM "${name}"`)));
    return texts.join("\n");
  });
}
