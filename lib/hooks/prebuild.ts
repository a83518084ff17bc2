import "server-only";
import fs from "node:fs";
import path from "node:path";
import { EXTERNAL, keepImportMeta } from "../bundle";
import { projectRoot } from "../paths.mjs";
import { freshHookEntry, hookManifestFile, hookPrebuiltDir, HOOK_PREBUILT_VERSION, type HookManifest } from "./prebuilt.mjs";

/** A build started this long ago and not finished is taken to have died: another may start. */
const LOCK_STALE_MS = 60_000;

/**
 * Prebuilds `baton hook` (lib/cli/commands/hook.ts with the pickup domain, zod and SQLite's
 * statements) into one CommonJS file under node_modules/.cache/baton-hook, which
 * lib/hooks/launch.mjs compiles with V8's code cache (CommonJS: only a classic script can use one
 * on Node 20) and runs with plain Node: Claude Code waits for a SessionStart hook before the
 * session starts, and tsx alone costs 250–400 ms. Each build goes to its own folder and is
 * switched to by renaming the manifest, so hooks starting meanwhile never see half a build.
 */
export async function prebuildHook(): Promise<string> {
  const { build } = await import("esbuild");
  const builtAt = Date.now();
  const outdir = path.join(hookPrebuiltDir, `build-${builtAt}-${process.pid}`);
  const result = await build({
    entryPoints: { hook: path.join(projectRoot, "lib", "cli", "commands", "hook.ts") },
    outdir,
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    outExtension: { ".js": ".cjs" },
    external: EXTERNAL,
    // A script compiled from a code cache on Node 20 has no working import(): lowered to require.
    supported: { "dynamic-import": false },
    plugins: [keepImportMeta],
    tsconfig: path.join(projectRoot, "tsconfig.json"),
    metafile: true,
    logLevel: "silent",
  });
  const inputs = Object.keys(result.metafile.inputs)
    .map((input) => path.resolve(projectRoot, input))
    .filter((input) => !input.includes(`${path.sep}node_modules${path.sep}`));
  // Installing packages, the recipe (this file) or the launcher make a build stale too.
  inputs.push(
    path.join(projectRoot, "node_modules", ".package-lock.json"),
    path.join(projectRoot, "lib", "hooks", "prebuild.ts"),
    path.join(projectRoot, "lib", "hooks", "launch.mjs"),
  );
  const manifest: HookManifest = { version: HOOK_PREBUILT_VERSION, entry: path.join(outdir, "hook.cjs"), builtAt, inputs };
  const temporary = `${hookManifestFile}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(manifest, null, 2));
  fs.renameSync(temporary, hookManifestFile);
  removeOldBuilds(outdir);
  return manifest.entry;
}

/** Prebuilds the hook unless the current build is fresh; returns the entry file either way. */
export async function ensurePrebuiltHook(): Promise<string> {
  return freshHookEntry() ?? prebuildHook();
}

/**
 * For the launcher's background build: prebuilds unless fresh or another process is building
 * now (a lock file), so hooks starting together after an edit start one build, not one each.
 */
export async function prebuildHookOnce(): Promise<void> {
  if (freshHookEntry()) return;
  fs.mkdirSync(hookPrebuiltDir, { recursive: true });
  const lock = path.join(hookPrebuiltDir, "build.lock");
  const held = fs.statSync(lock, { throwIfNoEntry: false });
  if (held && Date.now() - held.mtimeMs < LOCK_STALE_MS) return;
  fs.rmSync(lock, { force: true });
  try {
    fs.writeFileSync(lock, String(process.pid), { flag: "wx" });
  } catch {
    return; // another process took it first
  }
  try {
    await prebuildHook();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

/** Deletes builds older than a day; younger ones may still be loading in a running hook. */
function removeOldBuilds(keep: string): void {
  const dayAgo = Date.now() - 24 * 60 * 60 * 1000;
  for (const name of fs.readdirSync(hookPrebuiltDir)) {
    const folder = path.join(hookPrebuiltDir, name);
    if (!name.startsWith("build-") || folder === keep) continue;
    if (fs.statSync(folder).mtimeMs < dayAgo) fs.rmSync(folder, { recursive: true, force: true });
  }
}
