/**
 * What every esbuild bundle of Baton's TypeScript for plain Node shares: the prebuilt commands
 * (lib/prebuilt/build.ts) and the compiled production server (scripts/build-server.ts).
 */
import "server-only";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Plugin } from "esbuild";

/** Packages loaded from node_modules at run time: native code, WASM and files found by path. */
export const EXTERNAL = ["@prisma/*", "better-sqlite3", "pg", "prisma"];

/**
 * Project files no longer sit where they were written once prebuilt, and CommonJS has no
 * `import.meta`: give each project file its own `import.meta.dirname` / `filename` / `url` as
 * literals while esbuild reads it (lib/database/migrate.ts finds prisma/migrations that way).
 */
const IMPORT_META_PROPERTY = /\bimport\.meta\.(dirname|filename|url)\b/g;

export const keepImportMeta: Plugin = {
  name: "keep-import-meta",
  setup(build) {
    build.onLoad({ filter: /\.(ts|mts|js|mjs)$/ }, (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const source = fs.readFileSync(args.path, "utf8");
      if (!source.includes("import.meta")) return undefined;
      const values = { dirname: path.dirname(args.path), filename: args.path, url: pathToFileURL(args.path).href };
      const contents = source.replace(IMPORT_META_PROPERTY, (_, property: keyof typeof values) => JSON.stringify(values[property]));
      return { contents, loader: /\.m?ts$/.test(args.path) ? "ts" : "js" };
    });
  },
};
