import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";
import { disconnectDb } from "../../lib/db";
import { closeSqlite } from "../../lib/sqlite";

// Every test file gets its own data folder and a freshly migrated database: tests never touch
// a developer's data/ and never see each other's rows.
const template = process.env.BATON_TEMPLATE_DB;
if (!template) throw new Error("BATON_TEMPLATE_DB is not set: run tests through vitest (tests/support/global-setup.ts)");

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-test-"));
fs.copyFileSync(template, path.join(dataDir, "baton.db"));
process.env.BATON_DATA_DIR = dataDir;
process.env.DATABASE_URL = `file:${path.join(dataDir, "baton.db")}`;

afterAll(async () => {
  await disconnectDb();
  closeSqlite();
  fs.rmSync(dataDir, { recursive: true, force: true });
});
