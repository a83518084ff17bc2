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
