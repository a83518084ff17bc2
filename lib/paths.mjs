// @ts-check
/**
 * Where Baton's files are, in plain JavaScript because the fast-start launchers
 * (lib/prebuilt/prebuilt.mjs) and `bin/baton.mjs` run without TypeScript. One definition for the
 * dashboard, MCP and the CLI.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import envPaths from "env-paths";

/** The checkout, or the installed package (`baton-desk`): the folder with package.json. */
export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The checkout's package.json is named `baton`; the published package is `baton-desk` (scripts/build-package.ts). */
export const CHECKOUT_NAME = "baton";

/** @type {boolean | undefined} */
let checkout;

/** Whether this code runs from a checkout of Baton's repository rather than from the installed package. */
export function isCheckout() {
  if (checkout === undefined) {
    try {
      checkout = JSON.parse(fs.readFileSync(path.join(projectRoot, "package.json"), "utf8")).name === CHECKOUT_NAME;
    } catch {
      checkout = false;
    }
  }
  return checkout;
}

/**
 * How a person runs Baton's commands on this machine, for the hints Baton prints: the checkout's
 * own command, or the published package's (`npx baton` outside a checkout fetches an unrelated
 * package of that name from the npm registry and runs it).
 */
export function batonCommand() {
  return isCheckout() ? "npx baton" : "npx baton-desk";
}

/**
 * The platform's per-user folders for Baton (`~/.local/share/baton`, `~/Library/Application Support/baton`, `%LOCALAPPDATA%\baton\Data` …).
 * A relative XDG_DATA_HOME or XDG_CACHE_HOME is ignored, as the XDG base directory specification
 * says: env-paths takes it as given, which made a desk of its own under each current folder (the
 * desk started in one, Claude Code's MCP server in each project's).
 */
export function userFolders() {
  const folders = envPaths("baton", { suffix: "" });
  const home = os.homedir();
  return {
    ...folders,
    data: path.isAbsolute(folders.data) ? folders.data : path.join(home, ".local", "share", "baton"),
    cache: path.isAbsolute(folders.cache) ? folders.cache : path.join(home, ".cache", "baton"),
  };
}

/**
 * The data folder when BATON_DATA_DIR is not set. In a checkout `data/` in it, whatever the
 * current folder, so `npx baton mcp` started by Claude Code in a project folder shares the
 * dashboard's data. From the installed package the user's data folder: never inside the package
 * or npm's cache, which npm replaces and prunes.
 */
export function defaultDataDir() {
  return isCheckout() ? path.join(projectRoot, "data") : userFolders().data;
}

/**
 * Why a path setting (BATON_DATA_DIR, DATABASE_URL's file: path) that starts with `~` cannot be
 * used, or null when it does not: only a shell turns `~` into the home folder, and a setting in a
 * service's unit, Claude Desktop's "env" or a .env file reaches Baton as written. Read as a
 * relative path it made a folder named `~` in whatever folder the process started in, with an
 * empty database in it beside the real one.
 * @param {string} setting the variable, as the message names it
 * @param {string} value the path as set
 */
export function homeShorthandProblem(setting, value) {
  if (!/^~(?:[\\/]|$)/.test(value)) return null;
  const meant = path.join(os.homedir(), value.slice(1));
  return `${setting} starts with ~ (${value}), which only a shell turns into the home folder, and none read it here; give the full path, ${meant}`;
}

/**
 * Makes `folder` if it does not exist, its owner's alone (parents as usual): Baton's data folder
 * holds every handoff and the webhooks' signing secrets, none of them for the machine's other
 * users. An existing folder is left as it is.
 * @param {string} folder
 */
export function makePrivateFolder(folder) {
  /** @param {() => void} make */
  const unlessThere = (make) => {
    try {
      make();
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code !== "EEXIST") throw error;
    }
  };
  try {
    unlessThere(() => fs.mkdirSync(folder, { mode: 0o700 }));
  } catch (error) {
    // Only a missing parent is made here: a file on the way stays the ENOTDIR it is.
    if (/** @type {NodeJS.ErrnoException} */ (error).code !== "ENOENT") throw error;
    fs.mkdirSync(path.dirname(folder), { recursive: true });
    unlessThere(() => fs.mkdirSync(folder, { mode: 0o700 }));
  }
}
