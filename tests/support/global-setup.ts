import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureMigrated } from "../../lib/database/migrate";
import { ensurePrebuilt } from "../../lib/prebuilt/build";
import { startPostgresCluster } from "./postgres-cluster";

/**
 * Migrates one template database per run and engine; each test file copies it into its own
 * (tests/support/isolated-data-dir.ts) instead of migrating again. PostgreSQL: a real server
 * of its own (tests/support/postgres-cluster.ts), stopped at the end of the run.
 */
export default async function setup(project: { name: string }) {
  const cleanups: (() => void)[] = [];
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "baton-template-"));
  cleanups.push(() => fs.rmSync(folder, { recursive: true, force: true }));
  // Tests start `baton` as users do after their first command: from the prebuilt CLI (lib/prebuilt).
  await ensurePrebuilt("cli");
  const file = path.join(folder, "template.db");
  await ensureMigrated(`file:${file}`);
  process.env.BATON_TEMPLATE_DB = file;
  if (project.name === "postgres") {
    const cluster = await startPostgresCluster();
    cleanups.push(() => cluster.destroy());
    const template = await cluster.createDatabase("baton_template");
    await ensureMigrated(template);
    process.env.BATON_TEST_POSTGRES_ADMIN_URL = cluster.url("postgres");
  }
  return () => {
    for (const cleanup of cleanups.reverse()) cleanup();
  };
}
