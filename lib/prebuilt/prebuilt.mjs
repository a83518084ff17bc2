// @ts-check
/**
 * Baton's prebuilt commands, for the fast-start launchers (lib/mcp/launch.mjs, lib/hooks/launch.mjs,
 * plain Node): which commands there are, where each build lives, whether it is current, and how
 * it is loaded. Registering tsx costs 250–400 ms on these machines and tsx-loaded modules import
 * several times more slowly, so a command something waits on (an MCP client for `initialize`,
 * Claude Code for a SessionStart hook) runs from one CommonJS bundle (made by
 * lib/prebuilt/build.ts) compiled with V8's code cache: Node 20 has no module compile cache, and
 * a cached classic script skips most parsing and compiling of the SDK, zod and the domain layer.
 * When the build is stale the command runs from the TypeScript sources through tsx and its
 * launcher has the next start prebuilt.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import vm from "node:vm";
import { defaultDataDir, projectRoot } from "../paths.mjs";

/**
 * Each prebuilt command: the module exporting its `run(args)` (relative to the checkout) and the
 * launcher that loads it (a build older than its launcher is stale).
 */
export const PREBUILT_COMMANDS = {
  mcp: { sourceEntry: "lib/cli/commands/mcp.ts", launcher: "lib/mcp/launch.mjs" },
  hook: { sourceEntry: "lib/cli/commands/hook.ts", launcher: "lib/hooks/launch.mjs" },
  // Every other command (import, token, checkpoint as the PreCompact hook, …): through tsx each
  // started in 0.4–0.9 s here.
  cli: { sourceEntry: "lib/cli/main.ts", launcher: "bin/baton.mjs" },
};

/** @typedef {keyof typeof PREBUILT_COMMANDS} PrebuiltName */

/** The layout of builds and manifests; a manifest of another version is stale. */
export const PREBUILT_VERSION = 4;

/** @typedef {{ version: number; entry: string; builtAt: number; inputs: string[] }} PrebuiltManifest */

/** @typedef {{ run: (args: string[]) => Promise<number> }} RunnableCommand */

/**
 * The folder of one command's builds.
 * @param {PrebuiltName} name
 */
export function prebuiltDir(name) {
  return path.join(projectRoot, "node_modules", ".cache", `baton-${name}`);
}

/**
 * The manifest naming the current build: replaced whole by a rename, so a launcher never reads half of one.
 * @param {PrebuiltName} name
 */
export function manifestFile(name) {
  return path.join(prebuiltDir(name), "current.json");
}

/**
 * The entry file of the command's current build when none of its inputs changed since it was built, else null.
 * @param {PrebuiltName} name
 * @returns {string | null}
 */
export function freshEntry(name) {
  /** @type {PrebuiltManifest} */
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(manifestFile(name), "utf8"));
  } catch {
    return null;
  }
  if (manifest.version !== PREBUILT_VERSION || typeof manifest.entry !== "string" || !Array.isArray(manifest.inputs)) return null;
  for (const input of [manifest.entry, ...manifest.inputs]) {
    const stat = fs.statSync(input, { throwIfNoEntry: false });
    if (!stat || (input !== manifest.entry && stat.mtimeMs > manifest.builtAt)) return null;
  }
  return manifest.entry;
}

/**
 * Where the code cache of `base` (a build, or a command's name in the package's cache folder) is
 * kept under the Node of ABI `modules` (`process.versions.modules`; this one's by default). V8
 * refuses a cache another V8 made, and the one written in its place would be refused by the other
 * in turn: a machine with both LTS lines (CI runs the tests under each) keeps one per line.
 * @param {string} base
 * @param {string} [modules]
 * @returns {string}
 */
export function codeCacheFile(base, modules = process.versions.modules) {
  return `${base}.node-${modules}.cache`;
}

/**
 * The code cache in `cacheFile` when this user wrote it and no one else may change it, else
 * undefined. V8 runs a code cache made from any source of the same length as the one it is
 * given (it checks the length, not the text): a cache another user could write is their code,
 * run as this user. The published package keeps its caches in the user's cache folder.
 * @param {string} cacheFile
 * @returns {Buffer | undefined}
 */
function readOwnCodeCache(cacheFile) {
  let descriptor;
  try {
    // O_NOFOLLOW: a link in its place is not followed (0 on Windows, which has none of this).
    descriptor = fs.openSync(cacheFile, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
  } catch {
    return undefined;
  }
  try {
    const stat = fs.fstatSync(descriptor);
    // Owners and modes mean nothing on Windows (no getuid), where the user's folder is theirs.
    const othersMayWrite = process.getuid !== undefined && (stat.uid !== process.getuid() || (stat.mode & 0o022) !== 0);
    return stat.isFile() && !othersMayWrite ? fs.readFileSync(descriptor) : undefined;
  } finally {
    fs.closeSync(descriptor);
  }
}

/**
 * Loads a CommonJS build as a script compiled with its code cache (`cacheFile`). `saveCache`
 * is set when there was none, V8 refused it (another Node, a rebuilt command) or it was not
 * this user's alone: called later, it also keeps the functions compiled since the start, in a
 * file (and folders) only this user may read or write, whatever the umask. It throws when the
 * cache cannot be written.
 * @param {string} entry
 * @param {string} cacheFile
 * @returns {{ command: RunnableCommand; saveCache: (() => void) | null }}
 */
function loadWithCodeCache(entry, cacheFile) {
  const cachedData = readOwnCodeCache(cacheFile);
  const source = fs.readFileSync(entry, "utf8");
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: entry, cachedData });
  const loaded = { exports: /** @type {RunnableCommand} */ ({}) };
  script.runInThisContext()(loaded.exports, createRequire(entry), loaded, entry, path.dirname(entry));
  const saveCache = () => {
    fs.mkdirSync(path.dirname(cacheFile), { recursive: true, mode: 0o700 });
    const temporary = `${cacheFile}.${process.pid}.tmp`;
    // wx: never through a file or link already there.
    fs.writeFileSync(temporary, script.createCachedData(), { flag: "wx", mode: 0o600 });
    fs.renameSync(temporary, cacheFile);
  };
  return { command: loaded.exports, saveCache: !cachedData || script.cachedDataRejected ? saveCache : null };
}

/**
 * For a short-lived command's launcher: the build for the next start, in a detached process of its
 * own that the command never waits for (lib/prebuilt/build.ts's prebuildOnce: one at a time, under a
 * lock file).
 * @param {PrebuiltName} name
 */
export function prebuildInBackground(name) {
  try {
    const script = `import('./lib/prebuilt/build.ts').then((m) => m.prebuildOnce(${JSON.stringify(name)})).catch(() => {})`;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: projectRoot, detached: true, stdio: "ignore" });
    child.unref();
  } catch {
    // Only speed is lost: the next start runs from the sources again.
  }
}

/**
 * What differs between launchers. `codeCache`: when a missing cache is written, after the run
 * (a short-lived command) or some milliseconds after the start (a server). `prebuildLater`: how
 * the next start gets a build when this one runs from the sources. `warn`: where a failure that
 * costs only speed is said, if anywhere.
 * @typedef {{ codeCache: "after-run" | { afterMs: number }; prebuildLater: () => void; warn?: (problem: string) => void }} LaunchPolicy
 */

/**
 * Runs `baton <name> <args>` from its current build, else from the sources, and returns its exit code.
 * @param {PrebuiltName} name
 * @param {string[]} args
 * @param {LaunchPolicy} policy
 * @returns {Promise<number>}
 */
export async function launchPrebuilt(name, args, policy) {
  process.env.BATON_DATA_DIR ||= defaultDataDir();
  const entry = freshEntry(name);
  if (!entry) {
    policy.prebuildLater();
    const { register } = await import("tsx/esm/api");
    // The checkout's tsconfig, wherever the command was started: its paths resolve "server-only".
    register({ tsconfig: path.join(projectRoot, "tsconfig.json") });
    const sources = /** @type {RunnableCommand} */ (await import(pathToFileURL(path.join(projectRoot, PREBUILT_COMMANDS[name].sourceEntry)).href));
    return sources.run(args);
  }
  return runWithCodeCache(entry, codeCacheFile(entry), args, policy);
}

/**
 * Runs the CommonJS build `entry` with its code cache in `cacheFile` (written as the policy says)
 * and returns its exit code: the prebuilt commands here, the published package's bundles
 * (lib/package/entry.mjs).
 * @param {string} entry
 * @param {string} cacheFile
 * @param {string[]} args
 * @param {Pick<LaunchPolicy, "codeCache" | "warn">} policy
 * @returns {Promise<number>}
 */
export async function runWithCodeCache(entry, cacheFile, args, policy) {
  const { command, saveCache } = loadWithCodeCache(entry, cacheFile);
  if (!saveCache) return command.run(args);
  const save = () => {
    try {
      saveCache();
    } catch (error) {
      policy.warn?.(`could not write the code cache (${error instanceof Error ? error.message : String(error)})`);
    }
  };
  if (policy.codeCache === "after-run") {
    const code = await command.run(args);
    save();
    return code;
  }
  setTimeout(save, policy.codeCache.afterMs).unref();
  return command.run(args);
}