import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BATON_BIN } from "./support/baton-command";
import { temporaryFolders } from "./support/temp-folders";

/**
 * On PostgreSQL the data folder still holds the shift documents, artifacts and the hooks' state:
 * one an older Baton left readable by others (755) is made private at start by the rules SQLite's
 * data folder follows (tests/data-folder.test.ts): only this user's, only a folder of Baton's own
 * things. Run as users run it, the real CLI against the run's PostgreSQL.
 */
const onPostgres = process.env.BATON_TEST_ENGINE === "postgres";
const tempFolder = temporaryFolders("baton-pg-data-folder-");

function baton(args: string[], dataFolder: string) {
  return spawnSync(process.execPath, [BATON_BIN, ...args], {
    cwd: tempFolder(),
    env: { ...process.env, BATON_DATA_DIR: dataFolder },
    encoding: "utf8",
    timeout: 60_000,
  });
}

const modeOf = (file: string) => (fs.statSync(file).mode & 0o777).toString(8);

/** A data folder an older Baton made under umask 022: 755, with a shift document and an artifact in it. */
function olderDataFolder(): string {
  const folder = tempFolder();
  fs.mkdirSync(path.join(folder, "personas", "developer", "handoffs"), { recursive: true });
  fs.writeFileSync(path.join(folder, "personas", "developer", "handoffs", "20261129T120000-0123abcd-89abcdef.md"), "# Handoff\n");
  fs.mkdirSync(path.join(folder, "artifacts", "blobs"), { recursive: true });
  fs.chmodSync(folder, 0o755);
  return folder;
}

describe.runIf(onPostgres)("a data folder an older Baton left readable by others, on PostgreSQL", () => {
  it("the CLI makes it 700 as it starts and says so once", () => {
    const folder = olderDataFolder();
    const first = baton(["token", "list"], folder);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toBe(
      `baton: made the data folder ${folder} (was 755) private to this user (other users of this machine could read its shift documents and artifacts)\n` +
        "no tokens; create one with `baton token create --name NAME --role operator`\n",
    );
    expect(modeOf(folder)).toBe("700");
    const again = baton(["token", "list"], folder);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).not.toContain("private");
  });

  it("a folder holding more than Baton's files (the user's own) and a shared one keep their modes", () => {
    const own = olderDataFolder();
    fs.writeFileSync(path.join(own, "notes.txt"), "mine");
    const shared = olderDataFolder();
    fs.chmodSync(shared, 0o1777);
    for (const folder of [own, shared]) {
      const ran = baton(["token", "list"], folder);
      expect(ran.status, ran.stderr).toBe(0);
      expect(ran.stderr).not.toContain("private");
    }
    expect(modeOf(own)).toBe("755");
    expect((fs.statSync(shared).mode & 0o7777).toString(8)).toBe("1777");
  });
});
