import fs from "node:fs";
import path from "node:path";
import Sqlite from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { createHandoff } from "../lib/handoffs";
import { temporaryFolders } from "./support/temp-folders";

/**
 * The process's database is the one DATABASE_URL and BATON_DATA_DIR name at each call (lib/database's
 * database(), which answers from what it holds while they stay the same): tests and the CLI point a
 * process elsewhere before its next use. SQLite files, so each write can be found in its file.
 */
const sqlite = process.env.BATON_TEST_ENGINE !== "postgres";
const tempFolder = temporaryFolders("baton-database-settings-");
const original = { DATABASE_URL: process.env.DATABASE_URL, BATON_DATA_DIR: process.env.BATON_DATA_DIR };

/** A folder holding a migrated database of its own. */
function dataFolder(): string {
  const folder = tempFolder();
  fs.copyFileSync(process.env.BATON_TEMPLATE_DB!, path.join(folder, "baton.db"));
  return folder;
}

function titlesIn(folder: string): string[] {
  const file = new Sqlite(path.join(folder, "baton.db"), { readonly: true });
  try {
    return (file.prepare("SELECT title FROM handoffs ORDER BY title").all() as { title: string }[]).map((row) => row.title);
  } finally {
    file.close();
  }
}

afterEach(() => {
  for (const [name, value] of Object.entries(original)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe.skipIf(!sqlite)("the process's database follows its settings", () => {
  it("DATABASE_URL: each write goes to the file it names at the time", async () => {
    const [first, second] = [dataFolder(), dataFolder()];
    process.env.DATABASE_URL = `file:${path.join(first, "baton.db")}`;
    await createHandoff({ title: "into the first", content: "one" });
    process.env.DATABASE_URL = `file:${path.join(second, "baton.db")}`;
    await createHandoff({ title: "into the second", content: "two" });
    process.env.DATABASE_URL = `file:${path.join(first, "baton.db")}`;
    await createHandoff({ title: "into the first again", content: "three" });
    expect(titlesIn(first)).toEqual(["into the first", "into the first again"]);
    expect(titlesIn(second)).toEqual(["into the second"]);
  });

  it("without DATABASE_URL, BATON_DATA_DIR: its folder's baton.db; a URL naming the same file then is the same database", async () => {
    const [first, second] = [dataFolder(), dataFolder()];
    delete process.env.DATABASE_URL;
    process.env.BATON_DATA_DIR = first;
    await createHandoff({ title: "in the first folder", content: "one" });
    process.env.BATON_DATA_DIR = second;
    await createHandoff({ title: "in the second folder", content: "two" });
    // Other settings naming the same file: the same database, kept open.
    process.env.DATABASE_URL = `file:${path.join(second, "baton.db")}`;
    await createHandoff({ title: "in the second, by URL", content: "three" });
    expect(titlesIn(first)).toEqual(["in the first folder"]);
    expect(titlesIn(second)).toEqual(["in the second folder", "in the second, by URL"]);
  });
});
