// @ts-check
/**
 * `baton` from the published package `baton-desk` (bundled into its bin/baton.mjs by
 * scripts/build-package.ts; the checkout's own entry is bin/baton.mjs). Everything runs prebuilt
 * from the package's dist/: no build, no TypeScript loader. With no command (or `start`) it serves
 * the desk; `mcp` and `hook` load their own small bundles with V8's code cache (kept in the user's
 * cache folder, never in the package); every other command runs the CLI bundle.
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { defaultDataDir, homeShorthandProblem, makePrivateFolder, projectRoot, userFolders } from "../paths.mjs";
import { codeCacheFile, runWithCodeCache } from "../prebuilt/prebuilt.mjs";
import { endOnUnwritableOutput } from "../closed-output.mjs";
import { exitUnlessSupportedNode } from "../supported-node.mjs";
import { tierUpLikeNode24 } from "../mcp/tiering.mjs";

exitUnlessSupportedNode();
endOnUnwritableOutput({ stdout: process.argv[2] !== "mcp" });

/** After this long the MCP server's compiled functions (start-up, first calls) go into the code cache. */
const MCP_CODE_CACHE_DELAY_MS = 2_000;

const distDir = path.join(projectRoot, "dist");
const { version } = JSON.parse(fs.readFileSync(path.join(projectRoot, "package.json"), "utf8"));

/**
 * The data folder, created (its owner's alone) if missing. A folder that cannot be written to ends the command with one
 * line (exit 1): every command stores something there, and a database error later would say less.
 * @returns {string | null} the folder, or null when it is not writable
 */
function writableDataDir() {
  const problem = process.env.BATON_DATA_DIR ? homeShorthandProblem("BATON_DATA_DIR", process.env.BATON_DATA_DIR) : null;
  if (problem) {
    process.stderr.write(`baton: ${problem}\n`);
    return null;
  }
  const folder = path.resolve(process.env.BATON_DATA_DIR || defaultDataDir());
  try {
    makePrivateFolder(folder);
    fs.accessSync(folder, fs.constants.W_OK);
    return folder;
  } catch (error) {
    const code = /** @type {NodeJS.ErrnoException} */ (error).code ?? "error";
    process.stderr.write(`baton: cannot write to the data folder ${folder} (${code}); choose another with BATON_DATA_DIR=<folder>\n`);
    return null;
  }
}

/** @param {string} name @param {string[]} args @param {"after-run" | { afterMs: number }} codeCache */
function runBundle(name, args, codeCache) {
  const cacheFile = codeCacheFile(path.join(userFolders().cache, "code-cache", version, name));
  return runWithCodeCache(path.join(distDir, `${name}.cjs`), cacheFile, args, { codeCache });
}

/** Serves the desk: Baton's server (dist/server.mjs) with Next's production build from the package. */
async function serve() {
  const serverFiles = JSON.parse(fs.readFileSync(path.join(projectRoot, "next-server.json"), "utf8"));
  // Next reads its configuration from here instead of compiling next.config.ts, as its own standalone server does.
  process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = JSON.stringify(serverFiles.config);
  Object.assign(process.env, { NODE_ENV: "production" }); // read-only in the types, a plain variable at run time
  await import(pathToFileURL(path.join(distDir, "server.mjs")).href);
}

const [command, ...args] = process.argv.slice(2);
const serving = command === undefined || command === "start";
// Help and the version store nothing: no data folder for them.
const informational = ["--help", "-h", "help", "--version", "-v"].includes(command);
if (serving && args.length > 0) {
  // `start --port 4000` would otherwise serve on 3000 as if understood.
  process.stderr.write(`baton start: takes no arguments, got ${JSON.stringify(args[0])}; the desk listens where HOST and PORT say: PORT=4000 npx baton-desk start\n`);
  process.exitCode = 2;
} else {
  const dataDir = informational ? "" : writableDataDir();
  if (dataDir === null) {
    process.exitCode = 1;
  } else {
    if (dataDir) process.env.BATON_DATA_DIR = dataDir;
    if (serving) {
      await serve();
    } else if (command === "mcp") {
      tierUpLikeNode24();
      process.exitCode = await runBundle("mcp", args, { afterMs: MCP_CODE_CACHE_DELAY_MS });
    } else if (command === "hook") {
      process.exitCode = await runBundle("hook", args, "after-run");
    } else {
      process.exitCode = await runBundle("cli", process.argv.slice(2), "after-run");
    }
  }
}
