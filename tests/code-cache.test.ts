import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { temporaryFolders } from "./support/temp-folders";

/**
 * The code caches Baton's launchers load a command with (lib/prebuilt/prebuilt.mjs's
 * runWithCodeCache: the published package's bin keeps them in the user's cache folder,
 * `~/.cache/baton/code-cache/<version>/`). V8 runs a code cache made from any source of the same
 * length as the one it is given, so a cache another user could write is that user's code run as
 * this one. Each run is a Node process of its own under umask 000, as a user with a permissive
 * umask runs `npx baton-desk`.
 */
const prebuilt = pathToFileURL(path.resolve(import.meta.dirname, "..", "lib", "prebuilt", "prebuilt.mjs")).href;
const tempFolder = temporaryFolders("baton-code-cache-");

const COMMAND = 'exports.run = async () => { process.stdout.write("the command ran\\n"); return 0; };';
/** Another user's code, as long as the command's. */
const PLANTED = 'exports.run = async () => { process.stdout.write("PLANTED: ran it\\n"); return 0; };';

/** What runWithCodeCache compiles: the CommonJS wrapper around the build's text. */
const wrapped = (source: string) => `(function (exports, require, module, __filename, __dirname) {${source}\n})`;

/** Runs the command at `entry` through runWithCodeCache with `cacheFile`, under umask 000. */
function launch(entry: string, cacheFile: string) {
  const script = `const { runWithCodeCache } = await import(${JSON.stringify(prebuilt)});
process.exitCode = await runWithCodeCache(${JSON.stringify(entry)}, ${JSON.stringify(cacheFile)}, [], { codeCache: "after-run", warn: (problem) => console.error(problem) });`;
  return spawnSync("sh", ["-c", 'umask 000 && exec "$0" "$@"', process.execPath, "--input-type=module", "-e", script], { encoding: "utf8", timeout: 60_000 });
}

/** A command's build and where its cache goes (its folders not made yet, as on a fresh machine). */
function command(): { entry: string; cacheFile: string; cacheRoot: string } {
  const folder = tempFolder();
  const entry = path.join(folder, "cli.cjs");
  fs.writeFileSync(entry, COMMAND);
  const cacheRoot = path.join(folder, "cache");
  return { entry, cacheFile: path.join(cacheRoot, "code-cache", "0.1.0", "cli.cache"), cacheRoot };
}

/**
 * Writes to `file` a code cache of PLANTED, which V8 takes for the command's (same length), in a
 * plain Node process. It runs PLANTED first: a cache holds the functions compiled by then, and
 * those run instead of the command's.
 */
function plantCache(file: string, mode: number): void {
  expect(PLANTED.length).toBe(COMMAND.length);
  const script = `const vm = require("node:vm"); const script = new vm.Script(${JSON.stringify(wrapped(PLANTED))});
const planted = { exports: {} }; script.runInThisContext()(planted.exports, require, planted, "", ""); planted.exports.run();
require("node:fs").writeFileSync(${JSON.stringify(file)}, script.createCachedData(), { mode: ${mode} });`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.rmSync(file, { force: true });
  const made = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
  expect(made.status, made.stderr).toBe(0);
  fs.chmodSync(file, mode);
}

const modeOf = (file: string) => (fs.statSync(file).mode & 0o777).toString(8);

describe("a command's code cache is its user's alone", () => {
  it("is written 600 in folders made 700, whatever the umask", () => {
    const { entry, cacheFile, cacheRoot } = command();
    const ran = launch(entry, cacheFile);
    expect([ran.status, ran.stdout, ran.stderr]).toEqual([0, "the command ran\n", ""]);
    expect(modeOf(cacheFile)).toBe("600");
    for (let folder = path.dirname(cacheFile); folder !== path.dirname(cacheRoot); folder = path.dirname(folder)) expect([folder, modeOf(folder)]).toEqual([folder, "700"]);
  });

  it("one that others may write (666, as a permissive umask left it) is never run, and is replaced by the user's own", () => {
    const { entry, cacheFile } = command();
    plantCache(cacheFile, 0o666);
    const ran = launch(entry, cacheFile);
    expect([ran.status, ran.stdout, ran.stderr]).toEqual([0, "the command ran\n", ""]);
    expect(modeOf(cacheFile)).toBe("600");
    expect(launch(entry, cacheFile).stdout).toBe("the command ran\n");

    // The planted cache is one V8 takes: as the user's own file it runs.
    plantCache(cacheFile, 0o600);
    expect(launch(entry, cacheFile).stdout).toBe("PLANTED: ran it\n");
  });

  it("a link in its place is not followed", () => {
    const { entry, cacheFile } = command();
    const elsewhere = path.join(tempFolder(), "planted.cache");
    plantCache(elsewhere, 0o600);
    fs.mkdirSync(path.dirname(cacheFile), { recursive: true });
    fs.symlinkSync(elsewhere, cacheFile);
    expect(launch(entry, cacheFile).stdout).toBe("the command ran\n");
    expect(fs.lstatSync(cacheFile).isFile()).toBe(true);
  });

  it.skipIf(process.getuid?.() !== 0)("one another user owns is never run, though only they may write it (run as root)", () => {
    const { entry, cacheFile } = command();
    plantCache(cacheFile, 0o644);
    const nobody = 65_534;
    fs.chownSync(cacheFile, nobody, nobody);
    const ran = launch(entry, cacheFile);
    expect([ran.status, ran.stdout, ran.stderr]).toEqual([0, "the command ran\n", ""]);
    expect(fs.statSync(cacheFile).uid).toBe(0);
  });
});
