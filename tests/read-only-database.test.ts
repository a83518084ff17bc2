import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { temporaryFolders } from "./support/temp-folders";

/**
 * The desk on a database it cannot write (a read-only file or folder, a disk mounted read-only):
 * SQLite opens such a file read-only without a word, and the desk used to serve, answering every
 * change with 500. Its server (scripts/serve.ts, what `npm start` runs compiled) is run as users
 * run it, as a user the file system refuses: as root, which the file system never refuses, the
 * commands run as `nobody`.
 */
const projectRoot = path.resolve(import.meta.dirname, "..");
const tsx = path.join(projectRoot, "node_modules", ".bin", "tsx");
const tempFolder = temporaryFolders("baton-read-only-");
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

/** The command and its arguments as a user the file system's modes apply to. */
const asUser = (command: string, args: string[]): [string, string[]] =>
  asRoot ? ["setpriv", [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", command, ...args]] : [command, args];

/** A data folder with a migrated database, both that user's; the folder's parent open to them. */
function dataFolder(): { folder: string; env: NodeJS.ProcessEnv } {
  const parent = tempFolder();
  fs.chmodSync(parent, 0o755);
  const folder = path.join(parent, "data");
  fs.mkdirSync(folder);
  if (asRoot) fs.chownSync(folder, NOBODY, NOBODY);
  const env: NodeJS.ProcessEnv = { ...process.env, BATON_DATA_DIR: folder, HOME: folder, PORT: "0" };
  delete env.DATABASE_URL;
  const [command, args] = asUser(process.execPath, [path.join(projectRoot, "bin", "baton.mjs"), "token", "list"]);
  const made = spawnSync(command, args, { cwd: folder, env, encoding: "utf8" });
  expect(made.status, made.stderr).toBe(0);
  return { folder, env };
}

/** The desk's server, to its end or for at most 30 s (one that serves is stopped, and fails the test). */
async function serve(env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const [command, args] = asUser(tsx, [path.join(projectRoot, "scripts", "serve.ts")]);
  // From the checkout, as npm runs it: tsx takes the checkout's tsconfig from there.
  const child = spawn(command, args, { cwd: projectRoot, env, detached: true });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const timer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), 30_000);
  const code = await exited;
  clearTimeout(timer);
  return { code, output };
}

describe("the desk on a database it cannot write", () => {
  it("a read-only database file: the desk does not start, and says so in one line", { timeout: 120_000 }, async () => {
    const { folder, env } = dataFolder();
    const database = path.join(folder, "baton.db");
    fs.chmodSync(database, 0o444);
    const ran = await serve(env);
    expect(ran.code, ran.output).toBe(1);
    expect(ran.output.trim().split("\n")).toEqual([
      `baton: cannot write the database ${database}: ${database} is read-only here (EACCES); make it writable, or choose another folder with BATON_DATA_DIR`,
    ]);
  });

  it("a read-only data folder (SQLite keeps its -wal and -shm files beside the database): the same", { timeout: 120_000 }, async () => {
    const { folder, env } = dataFolder();
    fs.chmodSync(folder, 0o555);
    const ran = await serve(env);
    expect(ran.code, ran.output).toBe(1);
    expect(ran.output.trim().split("\n")).toEqual([
      `baton: cannot write the database ${path.join(folder, "baton.db")}: ${folder} is read-only here (EACCES); make it writable, or choose another folder with BATON_DATA_DIR`,
    ]);
  });
});
