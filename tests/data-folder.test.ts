import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "../lib/paths.mjs";
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

  it("a kept bundle (close --archive) is made 600 in folders made 700, also in a folder of the user's own that keeps its mode", async () => {
    const folder = tempFolder();
    fs.chmodSync(folder, 0o755);
    fs.writeFileSync(path.join(folder, "notes.txt"), "mine");
    const { client } = await connectStdioClient({ command: { command: "sh", args: [...UNDER_UMASK_022, "mcp"] }, cwd: tempFolder(), env: userEnv({ BATON_DATA_DIR: folder }), inheritEnv: false });
    let id: string;
    try {
      const created = await client.callTool({ name: "create_handoff", arguments: { title: "Private", content: "Only for its owner" } });
      expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
      id = (created.structuredContent as { handoff: { id: string } }).handoff.id;
    } finally {
      await client.close();
    }
    const closed = baton(["close", id, "--archive"], { BATON_DATA_DIR: folder });
    expect(closed.status, closed.stderr).toBe(0);
    const artifact = /kept bundle ([0-9a-f]{64})/.exec(closed.stdout)?.[1];
    expect(artifact, closed.stdout).toBeDefined();
    expect(modeOf(folder)).toBe("755");
    const blobs = path.join(folder, "artifacts", "blobs");
    for (const made of [path.join(folder, "artifacts"), blobs]) expect([made, modeOf(made)]).toEqual([made, "700"]);
    expect(modeOf(path.join(blobs, artifact!))).toBe("600");
  });

  it("a database named by DATABASE_URL outside the data folder is made 600 in a folder made 700", () => {
    const folder = path.join(tempFolder(), "elsewhere");
    const database = path.join(folder, "desk.db");
    const created = baton(["token", "create", "--name", "desk", "--role", "operator"], { BATON_DATA_DIR: tempFolder(), DATABASE_URL: `file:${database}` });
    expect(created.status, created.stderr).toBe(0);
    expect(modeOf(folder)).toBe("700");
    for (const file of databaseFiles(database)) expect([file, modeOf(file)]).toEqual([file, "600"]);
  });
});

/**
 * A data folder an older Baton made (before the modes above) under umask 022: 755, its database
 * and SQLite's files beside it 644, and an artifacts folder.
 */
function olderDataFolder(): string {
  const folder = tempFolder();
  const made = baton(["token", "list"], { BATON_DATA_DIR: folder });
  expect(made.status, made.stderr).toBe(0);
  fs.mkdirSync(path.join(folder, "artifacts", "blobs"), { recursive: true });
  const wal = path.join(folder, "baton.db-wal");
  if (!fs.existsSync(wal)) fs.writeFileSync(wal, "");
  fs.chmodSync(folder, 0o755);
  for (const file of databaseFiles(path.join(folder, "baton.db"))) fs.chmodSync(file, 0o644);
  return folder;
}

const narrowedLine = (folder: string) =>
  `baton: made the data folder ${folder} (was 755) and the database ${folder}/baton.db (was 644) private to this user (other users of this machine could read every handoff)\n`;

function expectNarrowed(folder: string) {
  expect(modeOf(folder)).toBe("700");
  for (const file of databaseFiles(path.join(folder, "baton.db"))) expect([file, modeOf(file)]).toEqual([file, "600"]);
}

describe("a data folder an older Baton left readable by others is made private once, at start", () => {
  it("the CLI narrows the folder and the database files (700, 600) and says so once", () => {
    const folder = olderDataFolder();
    const first = baton(["token", "list"], { BATON_DATA_DIR: folder });
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toBe(`${narrowedLine(folder)}no tokens; create one with \`baton token create --name NAME --role operator\`\n`);
    expectNarrowed(folder);
    const again = baton(["token", "list"], { BATON_DATA_DIR: folder });
    expect(again.stderr).not.toContain("private");
  });

  it("baton mcp narrows them as it starts, before any call", async () => {
    const folder = olderDataFolder();
    const { client, stderr } = await connectStdioClient({ command: { command: "sh", args: [...UNDER_UMASK_022, "mcp"] }, cwd: tempFolder(), env: userEnv({ BATON_DATA_DIR: folder }), inheritEnv: false });
    try {
      expectNarrowed(folder);
      expect(stderr()).toContain(narrowedLine(folder));
    } finally {
      await client.close();
    }
  });

  it("the server npm start runs narrows them before it serves", async () => {
    const folder = olderDataFolder();
    const server: ChildProcess = spawn(path.join(projectRoot, "node_modules", ".bin", "tsx"), ["scripts/serve.ts"], {
      cwd: projectRoot,
      env: userEnv({ BATON_DATA_DIR: folder, HOST: "127.0.0.1", PORT: "0" }) as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    server.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    server.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      await expect.poll(() => stdout, { timeout: 60_000 }).toContain("baton: data in");
      expect(stderr).toBe(narrowedLine(folder));
      expectNarrowed(folder);
    } finally {
      process.kill(-server.pid!, "SIGKILL");
    }
  });

  it("a folder holding more than Baton's files (BATON_DATA_DIR at the user's own folder) keeps its mode; the database in it is narrowed", () => {
    const folder = olderDataFolder();
    fs.writeFileSync(path.join(folder, "notes.txt"), "mine");
    const ran = baton(["token", "list"], { BATON_DATA_DIR: folder });
    expect(ran.stderr).toContain(`baton: made the database ${folder}/baton.db (was 644) private to this user`);
    expect(modeOf(folder)).toBe("755");
    expect(modeOf(path.join(folder, "baton.db"))).toBe("600");
  });

  it("a shared folder (sticky, writable by all, as /tmp) keeps its mode", () => {
    const folder = olderDataFolder();
    fs.chmodSync(folder, 0o1777);
    const ran = baton(["token", "list"], { BATON_DATA_DIR: folder });
    expect(ran.status, ran.stderr).toBe(0);
    expect((fs.statSync(folder).mode & 0o7777).toString(8)).toBe("1777");
  });

  it("a database named by DATABASE_URL is narrowed, never the folder it is in", () => {
    const folder = olderDataFolder();
    const ran = baton(["token", "list"], { BATON_DATA_DIR: tempFolder(), DATABASE_URL: `file:${folder}/baton.db` });
    expect(ran.stderr).toContain(`baton: made the database ${folder}/baton.db (was 644) private to this user`);
    expect(modeOf(folder)).toBe("755");
    expect(modeOf(path.join(folder, "baton.db"))).toBe("600");
  });

  it.skipIf(process.getuid?.() !== 0)("a database another user owns is never changed (run as root, which may write it)", () => {
    const folder = olderDataFolder();
    const nobody = 65_534;
    for (const file of databaseFiles(path.join(folder, "baton.db"))) fs.chownSync(file, nobody, nobody);
    const ran = baton(["token", "list"], { BATON_DATA_DIR: folder });
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stderr).not.toContain("database");
    expect(modeOf(path.join(folder, "baton.db"))).toBe("644");
  });
});

describe("a data folder another user owns", () => {
  it.skipIf(process.getuid?.() !== 0)("is refused in one line by the CLI, baton mcp and the server, and nothing in it is read or changed (run as root, which could write it)", async () => {
    const folder = olderDataFolder();
    const nobody = 65_534;
    for (const entry of [folder, ...databaseFiles(path.join(folder, "baton.db"))]) fs.chownSync(entry, nobody, nobody);
    fs.chmodSync(folder, 0o777);
    const before = fs.readdirSync(folder).map((name) => [name, fs.statSync(path.join(folder, name)).mtimeMs]);
    const refusal = `the data folder ${folder} belongs to another user (uid ${nobody}), who could replace what Baton keeps there; nothing was read or changed: use a folder of your own (BATON_DATA_DIR=<folder>), or have its owner run Baton\n`;
    const token = baton(["token", "create", "--name", "desk", "--role", "operator"], { BATON_DATA_DIR: folder });
    expect([token.status, token.stdout, token.stderr]).toEqual([1, "", `baton token: ${refusal}`]);
    const mcp = baton(["mcp"], { BATON_DATA_DIR: folder });
    expect([mcp.status, mcp.stdout, mcp.stderr]).toEqual([1, "", `baton mcp: ${refusal}`]);
    const server = spawnSync(path.join(projectRoot, "node_modules", ".bin", "tsx"), ["scripts/serve.ts"], {
      cwd: projectRoot,
      env: userEnv({ BATON_DATA_DIR: folder, HOST: "127.0.0.1", PORT: "0" }) as NodeJS.ProcessEnv,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect([server.status, server.stderr]).toEqual([1, `baton: ${refusal}`]);
    expect(fs.readdirSync(folder).map((name) => [name, fs.statSync(path.join(folder, name)).mtimeMs])).toEqual(before);
    expect([modeOf(folder), modeOf(path.join(folder, "baton.db")), fs.statSync(folder).uid]).toEqual(["777", "644", nobody]);
  });
});
