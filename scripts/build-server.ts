/**
 * Builds what `npm start` runs: the dashboard (`next build`) and Baton's server
 * (scripts/serve.ts with lib/, bundled by esbuild into one ES module), both into the dist folder
 * (BATON_DIST_DIR, default .next), so production runs compiled JavaScript and never tsx.
 * Packages stay in node_modules (Next, Hono, the MCP SDK, Prisma's runtime); Baton's own code is
 * bundled once. scripts/start.mjs calls this when the build is missing or older than the sources.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { build } from "esbuild";
import { keepImportMeta } from "../lib/bundle";
import { projectRoot } from "../lib/paths.mjs";

const distDir = path.join(projectRoot, process.env.BATON_DIST_DIR || ".next");
const serverDir = path.join(distDir, "baton-server");
process.env.NEXT_TELEMETRY_DISABLED = "1";

if (!process.argv.includes("--server-only")) {
  const next = spawnSync(path.join(projectRoot, "node_modules", ".bin", "next"), ["build"], { cwd: projectRoot, env: process.env, stdio: "inherit" });
  if (next.status !== 0) process.exit(next.status ?? 1);
}

const manifest = JSON.parse(fs.readFileSync(path.join(projectRoot, "package.json"), "utf8")) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
// Every package stays external but server-only, which tsconfig.json maps to its empty entry.
const packages = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies }).filter((name) => name !== "server-only");
fs.rmSync(serverDir, { recursive: true, force: true });
await build({
  entryPoints: { server: path.join(projectRoot, "scripts", "serve.ts") },
  outdir: serverDir,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  outExtension: { ".js": ".mjs" },
  external: [...packages, ...packages.map((name) => `${name}/*`)],
  plugins: [keepImportMeta],
  tsconfig: path.join(projectRoot, "tsconfig.json"),
  // The bundle lives in the dist folder, but its packages are the checkout's.
  banner: { js: `import { createRequire as batonCreateRequire } from "node:module"; const require = batonCreateRequire(${JSON.stringify(path.join(projectRoot, "package.json"))});` },
  logLevel: "warning",
});
console.log(`baton: server built into ${path.relative(projectRoot, serverDir)}/server.mjs`);
