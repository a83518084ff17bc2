import fs from "node:fs";
import path from "node:path";

const projectRoot = path.resolve(import.meta.dirname, "..", "..");
const { version } = JSON.parse(fs.readFileSync(path.join(projectRoot, "package.json"), "utf8")) as { version: string };

/** Where `npm run pack` (scripts/build-package.ts) leaves the package it packs. */
export const PACKED_TARBALL = path.join(projectRoot, ".package", `baton-desk-${version}.tgz`);
