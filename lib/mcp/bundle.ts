import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Plugin } from "esbuild";
import { bundleCacheDir, bundleManifestFile, freshBundleEntry, projectRoot } from "./launch.mjs";

/** Written next to the bundle; lib/mcp/launch.mjs reads it to decide whether the bundle is current. */
export type BundleManifest = { entry: string; builtAt: number; inputs: string[] };

/** Packages loaded from node_modules at run time: native code, WASM and files found by path. */
const EXTERNAL = ["@prisma/*", "better-sqlite3", "prisma"];

/**
 * Bundled files no longer sit where they were written; give each project file its own
 * `import.meta.dirname` / `filename` / `url` (lib/migrate.ts finds prisma/migrations that way,
 * the generated Prisma client its own folder).
 */
const IMPORT_META_PROPERTY = /\bimport\.meta\.(dirname|filename|url)\b/g;

const keepImportMeta: Plugin = {
  name: "keep-import-meta",
  setup(build) {
    // The bundle never rebuilds itself (see lib/cli/commands/mcp.ts); keep the bundler out of it.
    build.onResolve({ filter: /\/mcp\/bundle$/ }, (args) => ({ path: args.path, external: true }));
    build.onLoad({ filter: /\.(ts|mts|js|mjs)$/ }, (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const source = fs.readFileSync(args.path, "utf8");
      if (!source.includes("import.meta")) return undefined;
      const values = {
        dirname: path.dirname(args.path),
        filename: args.path,
        url: pathToFileURL(args.path).href,
      };
      const contents = source.replace(IMPORT_META_PROPERTY, (_, property: keyof typeof values) =>
        JSON.stringify(values[property]),
      );
      return { contents, loader: /\.m?ts$/.test(args.path) ? "ts" : "js" };
    });
  },
};

/**
 * Bundles `baton mcp` (lib/cli/commands/mcp.ts with the SDK, zod and the domain layer) into
 * plain ESM under node_modules/.cache/baton-mcp, with Prisma's code split into chunks that load
 * on first use. Each build goes to its own folder and is switched to by renaming the manifest,
 * so servers starting meanwhile never see half a bundle. Returns the entry file.
 */
export async function buildMcpBundle(): Promise<string> {
  const { build } = await import("esbuild");
  const builtAt = Date.now();
  const outdir = path.join(bundleCacheDir, `build-${builtAt}-${process.pid}`);
  const result = await build({
    entryPoints: { mcp: path.join(projectRoot, "lib", "cli", "commands", "mcp.ts") },
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    outExtension: { ".js": ".mjs" },
    external: EXTERNAL,
    define: { "process.env.BATON_MCP_BUNDLED": JSON.stringify("1") },
    // Bundled CommonJS dependencies call require(); give the ESM output one.
    banner: { js: 'import { createRequire as __batonCreateRequire } from "node:module"; const require = __batonCreateRequire(import.meta.url);' },
    plugins: [keepImportMeta],
    metafile: true,
    logLevel: "silent",
  });
  const inputs = Object.keys(result.metafile.inputs)
    .map((input) => path.resolve(projectRoot, input))
    .filter((input) => !input.includes(`${path.sep}node_modules${path.sep}`));
  // Installing or updating packages touches this file; a bundle older than it is stale.
  inputs.push(path.join(projectRoot, "node_modules", ".package-lock.json"));
  const manifest: BundleManifest = { entry: path.join(outdir, "mcp.mjs"), builtAt, inputs };
  const temporary = `${bundleManifestFile}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(manifest, null, 2));
  fs.renameSync(temporary, bundleManifestFile);
  removeOldBuilds(outdir);
  return manifest.entry;
}

/** Builds the bundle unless the current one is fresh; returns the entry file either way. */
export async function ensureMcpBundle(): Promise<string> {
  return freshBundleEntry() ?? buildMcpBundle();
}

/** Deletes builds older than a day; younger ones may still be loading chunks in a running server. */
function removeOldBuilds(keep: string): void {
  const dayAgo = Date.now() - 24 * 60 * 60 * 1000;
  for (const name of fs.readdirSync(bundleCacheDir)) {
    const folder = path.join(bundleCacheDir, name);
    if (!name.startsWith("build-") || folder === keep) continue;
    if (fs.statSync(folder).mtimeMs < dayAgo) fs.rmSync(folder, { recursive: true, force: true });
  }
}
