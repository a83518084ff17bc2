import "server-only";
import fs from "node:fs";
import path from "node:path";
import { EXTERNAL, keepImportMeta } from "../bundle";
import { projectRoot } from "../paths.mjs";
import { freshPrebuiltEntry, manifestFile, prebuiltDir, PREBUILT_VERSION, type PrebuiltManifest } from "./prebuilt-manifest.mjs";

/**
 * Prebuilds `baton mcp` (lib/cli/commands/mcp.ts with the SDK, zod and the domain layer) into one
 * CommonJS file under node_modules/.cache/baton-mcp, which lib/mcp/launch.mjs compiles with V8's
 * code cache (CommonJS because only a classic script can use one on Node 20). Dynamic imports
 * become `require` (esbuild's own lowering): a script compiled from a code cache on Node 20 has
 * no working `import()`. Each build goes to its own folder and is switched to by renaming the
 * manifest, so servers starting meanwhile never see half a build. Returns the entry file.
 */
export async function prebuildServer(): Promise<string> {
  const { build } = await import("esbuild");
  const builtAt = Date.now();
  const outdir = path.join(prebuiltDir, `build-${builtAt}-${process.pid}`);
  const result = await build({
    entryPoints: { mcp: path.join(projectRoot, "lib", "cli", "commands", "mcp.ts") },
    outdir,
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    outExtension: { ".js": ".cjs" },
    external: EXTERNAL,
    supported: { "dynamic-import": false },
    plugins: [keepImportMeta],
    // Its paths map "server-only" to the package's empty entry, as for tsx (the default throws).
    tsconfig: path.join(projectRoot, "tsconfig.json"),
    metafile: true,
    logLevel: "silent",
  });
  const inputs = Object.keys(result.metafile.inputs)
    .map((input) => path.resolve(projectRoot, input))
    .filter((input) => !input.includes(`${path.sep}node_modules${path.sep}`));
  // Installing or updating packages touches this file; a build older than it is stale. So is
  // one older than the recipe (this file) or the loader.
  inputs.push(
    path.join(projectRoot, "node_modules", ".package-lock.json"),
    path.join(projectRoot, "lib", "mcp", "prebuild.ts"),
    path.join(projectRoot, "lib", "bundle.ts"),
    path.join(projectRoot, "lib", "mcp", "launch.mjs"),
  );
  const manifest: PrebuiltManifest = { version: PREBUILT_VERSION, entry: path.join(outdir, "mcp.cjs"), builtAt, inputs };
  const temporary = `${manifestFile}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(manifest, null, 2));
  fs.renameSync(temporary, manifestFile);
  removeOldBuilds(outdir);
  return manifest.entry;
}

/** Prebuilds the server unless the current build is fresh; returns the entry file either way. */
export async function ensurePrebuiltServer(): Promise<string> {
  return freshPrebuiltEntry() ?? prebuildServer();
}

/** Deletes builds older than a day; younger ones may still be loading chunks in a running server. */
function removeOldBuilds(keep: string): void {
  const dayAgo = Date.now() - 24 * 60 * 60 * 1000;
  for (const name of fs.readdirSync(prebuiltDir)) {
    const folder = path.join(prebuiltDir, name);
    if (!name.startsWith("build-") || folder === keep) continue;
    if (fs.statSync(folder).mtimeMs < dayAgo) fs.rmSync(folder, { recursive: true, force: true });
  }
}
