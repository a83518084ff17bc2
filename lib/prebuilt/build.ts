import "server-only";
import fs from "node:fs";
import path from "node:path";
import { ALIAS, EXTERNAL, keepImportMeta, zodEnglishOnly } from "../bundle";
import { projectRoot } from "../paths.mjs";
import { freshEntry, manifestFile, PREBUILT_COMMANDS, prebuiltDir, PREBUILT_VERSION, type PrebuiltManifest, type PrebuiltName } from "./prebuilt.mjs";

/** A build started this long ago and not finished is taken to have died: another may start. */
const LOCK_STALE_MS = 60_000;

/**
 * Besides the sources esbuild reads, what makes every build stale: installing or updating
 * packages (npm touches this file), the recipe (this file, lib/bundle.ts) and the loader.
 */
const RECIPE_FILES = ["node_modules/.package-lock.json", "lib/prebuilt/build.ts", "lib/bundle.ts", "lib/prebuilt/prebuilt.mjs"];

/**
 * Prebuilds `baton <name>` (see lib/prebuilt/prebuilt.mjs) into one CommonJS file under
 * node_modules/.cache/baton-<name>: CommonJS because only a classic script can use V8's code cache
 * on Node 20, and dynamic imports become `require` (esbuild's own lowering) because a script
 * compiled from a code cache on Node 20 has no working `import()`. Each build goes to its own
 * folder and is switched to by renaming the manifest, so commands starting meanwhile never see
 * half a build. Returns the entry file.
 */
export async function prebuildCommand(name: PrebuiltName): Promise<string> {
  const { build } = await import("esbuild");
  const { sourceEntry, launcher } = PREBUILT_COMMANDS[name];
  const builtAt = Date.now();
  const outdir = path.join(prebuiltDir(name), `build-${builtAt}-${process.pid}`);
  const result = await build({
    entryPoints: { [name]: path.join(projectRoot, sourceEntry) },
    outdir,
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    outExtension: { ".js": ".cjs" },
    external: EXTERNAL,
    alias: ALIAS,
    supported: { "dynamic-import": false },
    plugins: [keepImportMeta, zodEnglishOnly],
    // Its paths map "server-only" to the package's empty entry, as for tsx (the default throws).
    tsconfig: path.join(projectRoot, "tsconfig.json"),
    // Aliases and packages resolve from the checkout, wherever the command was started (`baton mcp`
    // prebuilds itself from a user's repository, where "jsonc-parser/…" resolved to nothing).
    absWorkingDir: projectRoot,
    metafile: true,
    logLevel: "silent",
  });
  const inputs = [
    ...Object.keys(result.metafile.inputs)
      .map((input) => path.resolve(projectRoot, input))
      .filter((input) => !input.includes(`${path.sep}node_modules${path.sep}`)),
    ...[...RECIPE_FILES, launcher].map((file) => path.join(projectRoot, file)),
  ];
  const manifest: PrebuiltManifest = { version: PREBUILT_VERSION, entry: path.join(outdir, `${name}.cjs`), builtAt, inputs };
  const temporary = `${manifestFile(name)}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(manifest, null, 2));
  fs.renameSync(temporary, manifestFile(name));
  removeOldBuilds(name, outdir);
  return manifest.entry;
}

/** Prebuilds `baton <name>` unless its current build is fresh; returns the entry file either way. */
export async function ensurePrebuilt(name: PrebuiltName): Promise<string> {
  return freshEntry(name) ?? prebuildCommand(name);
}

/**
 * For a launcher's background build: prebuilds unless fresh or another process is building now
 * (a lock file), so commands starting together after an edit start one build, not one each.
 */
export async function prebuildOnce(name: PrebuiltName): Promise<void> {
  if (freshEntry(name)) return;
  fs.mkdirSync(prebuiltDir(name), { recursive: true });
  const lock = path.join(prebuiltDir(name), "build.lock");
  const held = fs.statSync(lock, { throwIfNoEntry: false });
  if (held && Date.now() - held.mtimeMs < LOCK_STALE_MS) return;
  fs.rmSync(lock, { force: true });
  try {
    fs.writeFileSync(lock, String(process.pid), { flag: "wx" });
  } catch {
    return; // another process took it first
  }
  try {
    await prebuildCommand(name);
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

/** Deletes builds older than a day; younger ones may still be loading chunks in a running command. */
function removeOldBuilds(name: PrebuiltName, keep: string): void {
  const dayAgo = Date.now() - 24 * 60 * 60 * 1000;
  for (const entry of fs.readdirSync(prebuiltDir(name))) {
    const folder = path.join(prebuiltDir(name), entry);
    if (!entry.startsWith("build-") || folder === keep) continue;
    if (fs.statSync(folder).mtimeMs < dayAgo) fs.rmSync(folder, { recursive: true, force: true });
  }
}
