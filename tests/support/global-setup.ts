import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureMigrated } from "../../lib/migrate";

/**
 * Migrates one template database per run; each test file copies it into its own temporary
 * data folder (tests/support/isolated-data-dir.ts) instead of migrating again.
 */
export default function setup() {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "baton-template-"));
  const file = path.join(folder, "template.db");
  ensureMigrated(`file:${file}`);
  process.env.BATON_TEMPLATE_DB = file;
  return () => fs.rmSync(folder, { recursive: true, force: true });
}
