import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { temporaryFolders } from "./support/temp-folders";

/**
 * What a new user types first, run as users run it (`node bin/baton.mjs …`): help they asked for
 * is the answer (standard output, exit 0, so `baton --help | less` shows it), the version is one
 * line, and neither stores anything.
 */
const projectRoot = path.resolve(import.meta.dirname, "..");
const bin = path.join(projectRoot, "bin", "baton.mjs");
const tempFolder = temporaryFolders("baton-cli-help-");
const { version } = JSON.parse(fs.readFileSync(path.join(projectRoot, "package.json"), "utf8")) as { version: string };

function baton(args: string[], dataFolder: string) {
  return spawnSync(process.execPath, [bin, ...args], {
    cwd: tempFolder(),
    env: { ...process.env, BATON_DATA_DIR: dataFolder, DATABASE_URL: `file:${path.join(dataFolder, "baton.db")}` },
    encoding: "utf8",
    timeout: 60_000,
  });
}

describe("help and version", () => {
  it("--help, -h and help print the usage on standard output and exit 0; no command prints it on standard error and exits 2", () => {
    const dataFolder = path.join(tempFolder(), "data");
    for (const flag of ["--help", "-h", "help"]) {
      const asked = baton([flag], dataFolder);
      expect([flag, asked.status, asked.stderr]).toEqual([flag, 0, ""]);
      expect(asked.stdout).toMatch(/^usage: baton <command> \[options\]\n/);
      expect(asked.stdout).toContain("--version");
    }
    const none = baton([], dataFolder);
    expect(none.status).toBe(2);
    expect(none.stdout).toBe("");
    expect(none.stderr).toMatch(/^usage: baton <command>/);
    expect(fs.existsSync(dataFolder)).toBe(false);
  });

  it("every command's --help is its usage on standard output, exit 0, and makes nothing (baton mcp's went to standard error)", () => {
    const dataFolder = path.join(tempFolder(), "data");
    for (const command of ["import", "export", "close", "token", "webhook", "secrets", "hook", "setup", "link", "copy-data", "checkpoint", "mcp"]) {
      const asked = baton([command, "--help"], dataFolder);
      expect([command, asked.status, asked.stderr]).toEqual([command, 0, ""]);
      expect(asked.stdout).toMatch(new RegExp(`^usage: baton ${command}\\b`));
    }
    expect(fs.existsSync(dataFolder)).toBe(false);
    // Twelve commands one after another: through tsx (sources newer than the prebuilt bundle) each takes seconds.
  }, 120_000);

  it("a verb's --help and a verb given bad arguments (token, webhook) answer before the database is touched: nothing is made", () => {
    const dataFolder = path.join(tempFolder(), "data");
    for (const args of [["token", "create", "--help"], ["token", "list", "-h"], ["webhook", "remove", "--help"], ["webhook", "add", "--help"]]) {
      const asked = baton(args, dataFolder);
      expect([args.join(" "), asked.status, asked.stderr]).toEqual([args.join(" "), 0, ""]);
      expect(asked.stdout).toMatch(/^usage: baton (token|webhook) /);
    }
    for (const [args, message] of [
      [["token", "create", "--name", "ci"], /^baton token: create needs --name and --role$/m],
      [["token", "list", "--bogus"], /^baton token: Unknown option '--bogus'/m],
      [["token", "revoke"], /^baton token: revoke takes one token name$/m],
      [["webhook", "add", "https://example.com/hook"], /^baton webhook: add needs --events/m],
      [["webhook", "list", "extra"], /^baton webhook: Unexpected argument 'extra'/m],
      [["webhook", "remove", "x"], /^baton webhook: the webhook id must be a whole number/m],
    ] as const) {
      const refused = baton([...args], dataFolder);
      expect([args.join(" "), refused.status, refused.stdout]).toEqual([args.join(" "), 2, ""]);
      expect(refused.stderr).toMatch(message);
    }
    expect(fs.existsSync(dataFolder)).toBe(false);
  }, 120_000);

  it("--version and -v print the version alone", () => {
    const dataFolder = path.join(tempFolder(), "data");
    for (const flag of ["--version", "-v"]) {
      const ran = baton([flag], dataFolder);
      expect([flag, ran.status, ran.stdout, ran.stderr]).toEqual([flag, 0, `${version}\n`, ""]);
    }
    expect(fs.existsSync(dataFolder)).toBe(false);
  });
});
