#!/usr/bin/env node
// Entry point of `npx baton …`. Runs the TypeScript CLI through tsx's loader, and points it at
// this checkout's data folder unless BATON_DATA_DIR / DATABASE_URL say otherwise.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
process.env.BATON_DATA_DIR ||= path.join(projectRoot, "data");
register();
const { main } = await import("../lib/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
