import "server-only";
import fs from "node:fs";
import path from "node:path";
import { dataDir } from "../config";
import { refuseDataFolderOfAnotherUser } from "../database/private-modes";
import { BUNDLE_EXTERNALS, dependencyFolders } from "../package/dependencies";
import { isCheckout, projectRoot } from "../paths.mjs";

/**
 * Which `baton` the commands `setup claude-code` writes start (hooks, MCP server), so they keep
 * working after setup ends:
 * - from a checkout, or from the package installed at a stable path (`npm install -g baton-desk`,
 *   or into a project): that `bin/baton.mjs`;
 * - from the package run by `npx baton-desk`: npm's npx cache is pruned, and `npx -y
 *   baton-desk@<version>` costs over a second at each start (SessionStart waits for it), so setup
 *   copies the package's runtime (bin, the CommonJS bundles, migrations, better-sqlite3 and pg)
 *   into the data folder, `runtime/<version>/`, and the commands start that copy.
 */
export function batonBinFile(): string {
  return path.join(runsFromNpxCache() ? runtimeCopyDir() : projectRoot, "bin", "baton.mjs");
}

/** npx installs into `<npm cache>/_npx/<hash>/node_modules`. */
function runsFromNpxCache(): boolean {
  return !isCheckout() && projectRoot.split(path.sep).includes("_npx");
}

function runtimeCopyDir(): string {
  const { version } = JSON.parse(fs.readFileSync(path.join(projectRoot, "package.json"), "utf8")) as { version: string };
  return path.join(dataDir(), "runtime", version);
}

/**
 * Makes what batonBinFile() names ready before setup writes commands that start it: in a checkout
 * the prebuilt bundles of the hooks and of the CLI (PreCompact runs `baton checkpoint`; the first
 * session should not wait for a build), from npx the copy.
 */
export async function prepareBatonCommand(): Promise<void> {
  if (isCheckout()) {
    const { ensurePrebuilt } = await import("../prebuilt/build");
    await ensurePrebuilt("hook");
    await ensurePrebuilt("cli");
    return;
  }
  if (runsFromNpxCache()) {
    // The commands will start what is in the folder: never one another user could have put there.
    refuseDataFolderOfAnotherUser();
    copyRuntime(runtimeCopyDir());
  }
}

/** In a native package only the compiled `.node` files of `build/` run; its sources and objects stay behind. */
function runtimeFile(packageFolder: string, file: string): boolean {
  const relative = path.relative(packageFolder, file).split(path.sep);
  if (!fs.existsSync(path.join(packageFolder, "binding.gyp"))) return true;
  if (relative[0] === "deps" || relative[0] === "src") return false;
  return relative[0] !== "build" || fs.statSync(file).isDirectory() || file.endsWith(".node");
}

/** The copy is made beside its final place and renamed into it, so a hook never starts half a copy. */
function copyRuntime(target: string): void {
  if (fs.existsSync(path.join(target, "package.json"))) return;
  const partial = `${target}.${process.pid}.partial`;
  fs.rmSync(partial, { recursive: true, force: true });
  for (const entry of ["bin", "dist", "prisma"]) {
    fs.cpSync(path.join(projectRoot, entry), path.join(partial, entry), { recursive: true, filter: (file) => !file.endsWith("server.mjs") });
  }
  const installRoot = path.resolve(projectRoot, "..", "..");
  // prebuild-install only fetches better-sqlite3's binary at install time.
  for (const [name, folder] of dependencyFolders(BUNDLE_EXTERNALS, { from: projectRoot, root: installRoot, skip: new Set(["prebuild-install"]) })) {
    fs.cpSync(folder, path.join(partial, "node_modules", name), { recursive: true, filter: (file) => runtimeFile(folder, file) });
  }
  fs.copyFileSync(path.join(projectRoot, "package.json"), path.join(partial, "package.json"));
  try {
    fs.renameSync(partial, target);
  } catch (error) {
    fs.rmSync(partial, { recursive: true, force: true });
    // Another setup finished the same copy first.
    if (!fs.existsSync(path.join(target, "package.json"))) throw error;
  }
}
