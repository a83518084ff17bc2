/**
 * What every esbuild bundle of Baton's TypeScript for plain Node shares: the prebuilt commands
 * (lib/prebuilt/build.ts) and the compiled production server (scripts/build-server.ts).
 */
import "server-only";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Plugin } from "esbuild";

/**
 * Packages loaded from node_modules at run time: native code, WASM and files found by path, and
 * esbuild, whose API finds its binary beside its own files and refuses to run bundled (`baton
 * setup` in a checkout prebuilds the hook from the CLI's bundle).
 */
export const EXTERNAL = ["@prisma/*", "better-sqlite3", "pg", "prisma", "esbuild"];

/**
 * Packages bundled from another of their builds. jsonc-parser's main entry is a UMD build whose
 * factory requires its parts at run time, out of esbuild's sight: its ES module build bundles whole.
 */
export const ALIAS = { "jsonc-parser": "jsonc-parser/lib/esm/main.js" };

/**
 * zod's index of its 60-odd message locales in English only. `import { z } from "zod"` is a
 * namespace whose `locales` member reaches every locale, so esbuild keeps them all (366 KB of the
 * hook's 838 KB bundle); Baton uses zod's default, English (its schemas import en.js themselves),
 * and never `z.locales`.
 */
export const zodEnglishOnly: Plugin = {
  name: "zod-english-only",
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]index\.c?js$/ }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      loader: "js",
      resolveDir: path.dirname(args.path),
    }));
  },
};

/** JavaScript expressions for one project file's `import.meta` properties. */
type ImportMetaExpressions = (file: string) => Record<"dirname" | "filename" | "url", string>;

/**
 * Project files no longer sit where they were written once bundled, and CommonJS has no
 * `import.meta`: give each project file its own `import.meta.dirname` / `filename` / `url` while
 * esbuild reads it (lib/database/migrate.ts finds prisma/migrations that way, lib/paths.mjs the
 * checkout or the package).
 */
function importMetaPlugin(name: string, expressionsOf: ImportMetaExpressions): Plugin {
  return {
    name,
    setup(build) {
      build.onLoad({ filter: /\.(ts|mts|js|mjs)$/ }, (args) => {
        if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        const source = fs.readFileSync(args.path, "utf8");
        if (!source.includes("import.meta")) return undefined;
        const expressions = expressionsOf(args.path);
        const contents = source.replace(IMPORT_META_PROPERTY, (_, property: keyof typeof expressions) => expressions[property]);
        return { contents, loader: /\.m?ts$/.test(args.path) ? "ts" : "js" };
      });
    },
  };
}

const IMPORT_META_PROPERTY = /\bimport\.meta\.(dirname|filename|url)\b/g;

/** In the checkout: the file's own place, as literals. */
export const keepImportMeta = importMetaPlugin("keep-import-meta", (file) => ({
  dirname: JSON.stringify(path.dirname(file)),
  filename: JSON.stringify(file),
  url: JSON.stringify(pathToFileURL(file).href),
}));

/**
 * In the published package (scripts/build-package.ts), which keeps the checkout's layout for the
 * files found by path (package.json, prisma/): the file's place relative to the bundle's own
 * place at run time, wherever npm put the package. `bundleDir` is where the bundle sits in that
 * layout; an ES module bundle needs `require` (its banner's createRequire).
 */
export function relocatedImportMeta(bundleDir: string, format: "cjs" | "esm"): Plugin {
  const bundleFolder = format === "cjs" ? "__dirname" : `require("node:url").fileURLToPath(new URL(".", import.meta.url))`;
  return importMetaPlugin("relocated-import-meta", (file) => {
    const dirname = `require("node:path").join(${bundleFolder}, ${JSON.stringify(path.relative(bundleDir, path.dirname(file)))})`;
    const filename = `require("node:path").join(${dirname}, ${JSON.stringify(path.basename(file))})`;
    return { dirname: `(${dirname})`, filename: `(${filename})`, url: `(require("node:url").pathToFileURL(${filename}).href)` };
  });
}
