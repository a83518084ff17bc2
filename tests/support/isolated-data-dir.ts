import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll } from "vitest";
import { closeDatabase } from "../../lib/database";

// Every test file gets its own data folder and a freshly migrated database: tests never touch
// a developer's data/ and never see each other's rows. On the postgres project the database is
// a copy of the migrated template on the run's own server (tests/support/global-setup.ts).
const template = process.env.BATON_TEMPLATE_DB;
if (!template) throw new Error("BATON_TEMPLATE_DB is not set: run tests through vitest (tests/support/global-setup.ts)");

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-test-"));
process.env.BATON_DATA_DIR = dataDir;
let adminQuery: ((text: string) => Promise<unknown>) | null = null;
let databaseName: string | null = null;

if (process.env.BATON_TEST_ENGINE === "postgres") {
  const adminUrl = process.env.BATON_TEST_POSTGRES_ADMIN_URL;
  if (!adminUrl) throw new Error("BATON_TEST_POSTGRES_ADMIN_URL is not set: the postgres project's global setup starts the server");
  databaseName = `test_${randomBytes(6).toString("hex")}`;
  adminQuery = async (text) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      return await client.query(text);
    } finally {
      await client.end();
    }
  };
  await adminQuery(`CREATE DATABASE "${databaseName}" TEMPLATE baton_template`);
  process.env.DATABASE_URL = adminUrl.replace(/\/postgres$/, `/${databaseName}`);
} else {
  fs.copyFileSync(template, path.join(dataDir, "baton.db"));
  process.env.DATABASE_URL = `file:${path.join(dataDir, "baton.db")}`;
}

afterAll(async () => {
  await closeDatabase();
  if (adminQuery && databaseName) await adminQuery(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`).catch(() => undefined);
  fs.rmSync(dataDir, { recursive: true, force: true });
});
