import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connectStdioClient } from "./support/mcp-clients";
import { temporaryFolders } from "./support/temp-folders";

/**
 * The data folder as the machine's other users see it: it holds every handoff and the webhooks'
 * signing secrets, so what Baton makes there is its owner's alone, whatever the umask. Run as
 * users run it, `node bin/baton.mjs …` (the CLI, the MCP server), a process of its own.
 */
const bin = path.resolve(import.meta.dirname, "..", "bin", "baton.mjs");
const tempFolder = temporaryFolders("baton-data-folder-");

/** The environment of a user's shell: no DATABASE_URL nor BATON_DATA_DIR but those given. */
function userEnv(env: Record<string, string>): Record<string, string> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  delete inherited.DATABASE_URL;
  delete inherited.BATON_DATA_DIR;
  return { ...inherited, ...env };
}

/** Runs `baton <args>` under the usual umask, 022: others may read what a process makes. */
const UNDER_UMASK_022 = ["-c", 'umask 022 && exec "$0" "$@"', process.execPath, bin];

function baton(args: string[], env: Record<string, string>) {
  // A shell's environment has no NODE_ENV, which Next's types make required.
  return spawnSync("sh", [...UNDER_UMASK_022, ...args], { cwd: tempFolder(), env: userEnv(env) as NodeJS.ProcessEnv, encoding: "utf8", timeout: 60_000 });
}

const modeOf = (file: string) => (fs.statSync(file).mode & 0o777).toString(8);

/** The database file and the -wal and -shm files SQLite made beside it. */
function databaseFiles(file: string): string[] {
  return [file, `${file}-wal`, `${file}-shm`].filter((name) => fs.existsSync(name));
}

describe("what Baton makes for its data is readable by its owner alone", () => {
  it("a data folder that did not exist is made 700, and the database, its -wal and -shm files 600, while baton mcp has them open", async () => {
    const parent = path.join(tempFolder(), "not-yet");
    const folder = path.join(parent, "data");
    const { client } = await connectStdioClient({ command: { command: "sh", args: [...UNDER_UMASK_022, "mcp"] }, cwd: tempFolder(), env: userEnv({ BATON_DATA_DIR: folder }), inheritEnv: false });
    try {
      const created = await client.callTool({ name: "create_handoff", arguments: { title: "Private", content: "Only for its owner" } });
      expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
      expect(modeOf(folder)).toBe("700");
      const files = databaseFiles(path.join(folder, "baton.db"));
      expect(files).toHaveLength(3);
      for (const file of files) expect([file, modeOf(file)]).toEqual([file, "600"]);
    } finally {
      await client.close();
    }
    // Only the folder Baton owns is narrowed: the parents it had to make are made as usual.
    expect(modeOf(parent)).toBe("755");
  });

  it("a database named by DATABASE_URL outside the data folder is made 600 in a folder made 700", () => {
    const folder = path.join(tempFolder(), "elsewhere");
    const database = path.join(folder, "desk.db");
    const created = baton(["token", "create", "--name", "desk", "--role", "operator"], { BATON_DATA_DIR: tempFolder(), DATABASE_URL: `file:${database}` });
    expect(created.status, created.stderr).toBe(0);
    expect(modeOf(folder)).toBe("700");
    for (const file of databaseFiles(database)) expect([file, modeOf(file)]).toEqual([file, "600"]);
  });

  it("an existing data folder and database keep the modes their owner gave them", () => {
    const folder = tempFolder();
    fs.chmodSync(folder, 0o750);
    const first = baton(["token", "list"], { BATON_DATA_DIR: folder });
    expect(first.status, first.stderr).toBe(0);
    fs.chmodSync(path.join(folder, "baton.db"), 0o640);
    const again = baton(["token", "list"], { BATON_DATA_DIR: folder });
    expect(again.status, again.stderr).toBe(0);
    expect(modeOf(folder)).toBe("750");
    expect(modeOf(path.join(folder, "baton.db"))).toBe("640");
  });
});
