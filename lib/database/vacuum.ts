import "server-only";
import BetterSqlite3 from "better-sqlite3";
import { databaseFile, databaseUrl } from "../config";
import { engineOf } from "./engine";
import { withConnection } from "./postgres";
import { BUSY_TIMEOUT_MS, unavailableWhenBusy } from "./busy";

/**
 * Rebuilds the database's files so rewritten rows leave no old text behind, outside any
 * transaction (neither engine vacuums inside one), on a connection of its own. SQLite: VACUUM of
 * the whole file, then the write-ahead log truncated (`tables` is not needed). PostgreSQL: VACUUM
 * FULL of `tables`, which locks each while it is rebuilt; its own write-ahead log keeps the old
 * text until the server recycles the segments.
 */
export async function vacuum(tables: readonly string[]): Promise<void> {
  const url = databaseUrl();
  if (engineOf(url) === "sqlite") {
    const connection = new BetterSqlite3(databaseFile(url), { timeout: BUSY_TIMEOUT_MS });
    try {
      connection.exec("VACUUM");
      connection.pragma("wal_checkpoint(TRUNCATE)");
    } catch (error) {
      throw unavailableWhenBusy(error, "sqlite", BUSY_TIMEOUT_MS);
    } finally {
      connection.close();
    }
    return;
  }
  if (!tables.every((table) => /^[a-z_]+$/.test(table))) throw new Error(`vacuum: not table names: ${tables.join(", ")}`);
  await withConnection(url, (client) => client.query(`VACUUM FULL ${tables.join(", ")}`));
}
