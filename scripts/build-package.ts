/**
 * `npm run pack`: builds the published package `baton-desk` (command `baton`) into
 * .package/baton-desk and packs it into .package/baton-desk-<version>.tgz. Everything is prebuilt
 * so a user's machine builds nothing: Next's production build with only the files its server needs
 * (`output: "standalone"`, traced by Next), Baton's server, CLI, MCP server and hook as esbuild
 * bundles, and the migrations. What npm installs for it: better-sqlite3 (native, compiled or
 * fetched for the user's Node) and pg; Next and React travel inside the package
 * (bundleDependencies), without Next's compiler binaries (@next/swc-*, hundreds of megabytes,
 * used only by builds) and without sharp (image optimisation, which the desk does not use).
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { build, type BuildOptions } from "esbuild";
import { ALIAS, relocatedImportMeta, zodEnglishOnly } from "../lib/bundle";
import { BUNDLE_EXTERNALS, dependencyFolders } from "../lib/package/dependencies";
import { projectRoot } from "../lib/paths.mjs";
import { PREBUILT_COMMANDS } from "../lib/prebuilt/prebuilt.mjs";

const PACKAGE_NAME = "baton-desk";
/** Next's build folder for the package, apart from the developer's .next. */
const NEXT_DIST = ".next-package";
/**
 * Installed by npm on the user's machine: native code must match their Node; pg has optional
 * native parts; zod's modules, bundled as one ES module, initialise out of order (the MCP SDK's
 * schemas then meet an undefined class at start-up).
 */
const INSTALLED = ["better-sqlite3", "pg", "zod"];
/** What the bundled Next may leave out: only its builds and image optimisation use them. */
const LEFT_OUT = new Set(["sharp"]);

const packageDir = path.join(projectRoot, ".package");
const stage = path.join(packageDir, PACKAGE_NAME);
const manifest = JSON.parse(fs.readFileSync(path.join(projectRoot, "package.json"), "utf8")) as {
  version: string;
  description: string;
  engines: Record<string, string>;
  dependencies: Record<string, string>;
};
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", CHECKPOINT_DISABLE: "1" };

function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const result = spawnSync(command, args, { cwd: options.cwd ?? projectRoot, env: options.env ?? env, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (exit ${result.status ?? result.signal})`);
}

/**
 * A bundled package's manifest names only what travels with it: npm would otherwise fetch what
 * Next's trace left out (its compiler binaries, sharp, build-time dependencies).
 */
function trimManifest(folder: string, bundled: Set<string>) {
  const file = path.join(folder, "package.json");
  const pkg = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown> & { dependencies?: Record<string, string> };
  delete pkg.optionalDependencies;
  delete pkg.scripts;
  if (pkg.dependencies) pkg.dependencies = Object.fromEntries(Object.entries(pkg.dependencies).filter(([name]) => bundled.has(name)));
  fs.writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
}

function nextBuild() {
  run(path.join(projectRoot, "node_modules", ".bin", "next"), ["build"], { env: { ...env, BATON_STANDALONE: "1", BATON_DIST_DIR: NEXT_DIST } });
  const standalone = path.join(projectRoot, NEXT_DIST, "standalone");
  const traced = dependencyFolders(["next", "react", "react-dom"], { from: standalone, root: standalone, skip: LEFT_OUT });
  const bundled = new Set(traced.keys());
  for (const [name, folder] of traced) {
    fs.cpSync(folder, path.join(stage, "node_modules", name), { recursive: true, dereference: true });
    trimManifest(path.join(stage, "node_modules", name), bundled);
  }
  const nextDir = path.join(stage, NEXT_DIST);
  fs.cpSync(path.join(standalone, NEXT_DIST), nextDir, { recursive: true, dereference: false, filter: (source) => !source.startsWith(path.join(standalone, NEXT_DIST, "node_modules")) });
  fs.cpSync(path.join(projectRoot, NEXT_DIST, "static"), path.join(nextDir, "static"), { recursive: true });
  if (fs.existsSync(path.join(projectRoot, "public"))) fs.cpSync(path.join(projectRoot, "public"), path.join(stage, "public"), { recursive: true });
  // Turbopack refers to external packages by hashed aliases (symlinks in <dist>/node_modules, which
  // npm does not pack): refer to them by name, resolved from the package's own node_modules.
  const alias = new RegExp(`\\b(${INSTALLED.join("|")})-[0-9a-f]{16}\\b`, "g");
  for (const file of fs.readdirSync(path.join(nextDir, "server"), { recursive: true, encoding: "utf8" })) {
    const full = path.join(nextDir, "server", file);
    if (!/\.(js|mjs|cjs|json)$/.test(file) || !fs.statSync(full).isFile()) continue;
    const text = fs.readFileSync(full, "utf8");
    if (alias.test(text)) fs.writeFileSync(full, text.replace(alias, "$1"));
    alias.lastIndex = 0;
  }
  const serverFiles = JSON.parse(fs.readFileSync(path.join(standalone, NEXT_DIST, "required-server-files.json"), "utf8")) as { config: unknown };
  fs.writeFileSync(path.join(stage, "next-server.json"), `${JSON.stringify({ config: serverFiles.config })}\n`);
  return bundled;
}

/** Baton's own code: every package but the installed ones and Next's (resolved from the package) goes into the bundles. */
async function bundles() {
  const shared: BuildOptions = {
    bundle: true,
    platform: "node",
    target: "node20",
    tsconfig: path.join(projectRoot, "tsconfig.json"),
    logLevel: "warning",
    legalComments: "none",
    alias: ALIAS,
  };
  const external = [...INSTALLED, ...INSTALLED.map((name) => `${name}/*`)];
  // Reached only in a checkout (lib/prebuilt builds, tsx for sources); never loaded from the package.
  const checkoutOnly = ["esbuild", "tsx", "tsx/*"];
  const esmRequire = `import { createRequire as batonCreateRequire } from "node:module"; const require = batonCreateRequire(import.meta.url);`;
  const distDir = path.join(projectRoot, "dist");
  await build({
    ...shared,
    entryPoints: { server: path.join(projectRoot, "scripts", "serve.ts") },
    outdir: path.join(stage, "dist"),
    format: "esm",
    outExtension: { ".js": ".mjs" },
    external: [...external, ...checkoutOnly, "next", "next/*", "react", "react/*", "react-dom", "react-dom/*"],
    plugins: [relocatedImportMeta(distDir, "esm")],
    banner: { js: esmRequire },
  });
  // CommonJS, dynamic imports lowered to require: the launcher compiles them with V8's code cache (lib/prebuilt/prebuilt.mjs).
  await build({
    ...shared,
    entryPoints: Object.fromEntries(Object.entries(PREBUILT_COMMANDS).map(([name, command]) => [name, path.join(projectRoot, command.sourceEntry)])),
    outdir: path.join(stage, "dist"),
    format: "cjs",
    outExtension: { ".js": ".cjs" },
    supported: { "dynamic-import": false },
    // zod's order problem is the ES module bundle's: CommonJS bundles carry it (setup's copy of the hook's runtime stays small).
    external: [...BUNDLE_EXTERNALS, ...BUNDLE_EXTERNALS.map((name) => `${name}/*`), ...checkoutOnly],
    plugins: [relocatedImportMeta(distDir, "cjs"), zodEnglishOnly],
  });
  await build({
    ...shared,
    entryPoints: { baton: path.join(projectRoot, "lib", "package", "entry.mjs") },
    outdir: path.join(stage, "bin"),
    format: "esm",
    outExtension: { ".js": ".mjs" },
    external: checkoutOnly,
    plugins: [relocatedImportMeta(path.join(projectRoot, "bin"), "esm")],
    banner: { js: `#!/usr/bin/env node\n${esmRequire}` },
  });
}

function packageManifest(bundled: Set<string>) {
  const versionOf = (name: string) => (JSON.parse(fs.readFileSync(path.join(stage, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
  const bundledNames = [...bundled].sort();
  return {
    name: PACKAGE_NAME,
    version: manifest.version,
    description: manifest.description,
    type: "module",
    bin: { baton: "bin/baton.mjs" },
    engines: manifest.engines,
    files: ["bin", "dist", "prisma", NEXT_DIST, "next-server.json", ...(fs.existsSync(path.join(stage, "public")) ? ["public"] : [])],
    dependencies: {
      ...Object.fromEntries(INSTALLED.map((name) => [name, manifest.dependencies[name]])),
      ...Object.fromEntries(bundledNames.map((name) => [name, versionOf(name)])),
    },
    bundleDependencies: bundledNames,
  };
}

fs.rmSync(stage, { recursive: true, force: true });
fs.mkdirSync(stage, { recursive: true });
const bundled = nextBuild();
await bundles();
for (const folder of ["prisma/migrations", "prisma/postgres/migrations"]) fs.cpSync(path.join(projectRoot, folder), path.join(stage, folder), { recursive: true });
fs.copyFileSync(path.join(projectRoot, "README.md"), path.join(stage, "README.md"));
fs.writeFileSync(path.join(stage, "package.json"), `${JSON.stringify(packageManifest(bundled), null, 2)}\n`);
const [packed] = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", packageDir], { cwd: stage, env, encoding: "utf8" })) as { filename: string; size: number; unpackedSize: number }[];
console.log(`baton: packed ${path.join(packageDir, packed.filename)} (${(packed.size / 1e6).toFixed(1)} MB, ${(packed.unpackedSize / 1e6).toFixed(1)} MB unpacked)`);
