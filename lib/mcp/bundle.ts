import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Metafile, Plugin } from "esbuild";
import { BUNDLE_VERSION, bundleCacheDir, bundleManifestFile, freshBundleEntry, projectRoot } from "./launch.mjs";

/** Written next to the bundle; lib/mcp/launch.mjs reads it to decide whether the bundle is current. */
export type BundleManifest = { version: number; entry: string; builtAt: number; inputs: string[] };

/** Packages loaded from node_modules at run time: native code, WASM and files found by path. */
const EXTERNAL = ["@prisma/*", "better-sqlite3", "prisma"];

/**
 * Bundled files no longer sit where they were written, and CommonJS has no `import.meta`: give
 * each project file its own `import.meta.dirname` / `filename` / `url` as literals
 * (lib/migrate.ts finds prisma/migrations that way, the generated Prisma client its own folder).
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
 * Bundles `baton mcp` (lib/cli/commands/mcp.ts with the SDK, zod and the domain layer) into one
 * CommonJS file under node_modules/.cache/baton-mcp, which lib/mcp/launch.mjs compiles with V8's
 * code cache (CommonJS because only a classic script can use one on Node 20). Modules loaded on
 * first use (Prisma and the domain) stay lazy inside it. Each build goes to its own folder and is
 * switched to by renaming the manifest, so servers starting meanwhile never see half a bundle.
 * Returns the entry file.
 */
export async function buildMcpBundle(): Promise<string> {
  const { build } = await import("esbuild");
  const builtAt = Date.now();
  const outdir = path.join(bundleCacheDir, `build-${builtAt}-${process.pid}`);
  const result = await build({
    entryPoints: { mcp: path.join(projectRoot, "lib", "cli", "commands", "mcp.ts") },
    outdir,
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    outExtension: { ".js": ".cjs" },
    external: EXTERNAL,
    define: { "process.env.BATON_MCP_BUNDLED": JSON.stringify("1") },
    plugins: [keepImportMeta],
    metafile: true,
    logLevel: "silent",
  });
  rewriteDynamicImports(path.join(outdir, "mcp.cjs"), result.metafile);
  const inputs = Object.keys(result.metafile.inputs)
    .map((input) => path.resolve(projectRoot, input))
    .filter((input) => !input.includes(`${path.sep}node_modules${path.sep}`));
  // Installing or updating packages touches this file; a bundle older than it is stale. So is
  // one older than the recipe (this file) or the loader.
  inputs.push(
    path.join(projectRoot, "node_modules", ".package-lock.json"),
    path.join(projectRoot, "lib", "mcp", "bundle.ts"),
    path.join(projectRoot, "lib", "mcp", "launch.mjs"),
  );
  const manifest: BundleManifest = { version: BUNDLE_VERSION, entry: path.join(outdir, "mcp.cjs"), builtAt, inputs };
  const temporary = `${bundleManifestFile}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(manifest, null, 2));
  fs.renameSync(temporary, bundleManifestFile);
  removeOldBuilds(outdir);
  return manifest.entry;
}

/**
 * Points the bundle's dynamic imports of packages and builtins (`import("node:buffer")`, Prisma's
 * WASM query compiler) at the loader's `Symbol.for("baton.import")`: a script compiled from V8's
 * code cache on Node 20 has no working `import()` of its own. Exactly the imports esbuild reports
 * are rewritten; the count is checked.
 */
function rewriteDynamicImports(file: string, metafile: Metafile): void {
  const specifiers = Object.values(metafile.outputs)
    .flatMap((output) => output.imports)
    .filter((record) => record.kind === "dynamic-import" && record.external)
    .map((record) => record.path);
  let source = fs.readFileSync(file, "utf8");
  for (const specifier of new Set(specifiers)) {
    const call = `import(${JSON.stringify(specifier)})`;
    const count = source.split(call).length - 1;
    if (count === 0) throw new Error(`bundle: dynamic import of ${specifier} not found in ${file}`);
    source = source.replaceAll(call, `globalThis[Symbol.for("baton.import")](${JSON.stringify(specifier)})`);
  }
  if (/\bimport\((?!\))/.test(source.replace(/globalThis\[Symbol\.for\("baton\.import"\)\]\(/g, ""))) {
    throw new Error(`bundle: ${file} still has a dynamic import() the loader cannot serve`);
  }
  fs.writeFileSync(file, source);
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
