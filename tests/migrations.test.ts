import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { databaseFile } from "../lib/config";
import { pendingMigrations } from "../lib/migrate";

/**
 * The migrated schema keeps what Prisma cannot see: the change feed's triggers. Prisma redefines a
 * SQLite table by copying it and dropping the old one, which drops its triggers too; a migration
 * that does so must create them again, and this test says when one did not.
 */
describe("the migrated database", () => {
  it("has every migration applied and a change-feed trigger for each write that feeds it", () => {
    expect(pendingMigrations()).toEqual([]);
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
      ]);
    } finally {
      sqlite.close();
    }
  });
});
