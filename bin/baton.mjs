#!/usr/bin/env node
// Entry point of `npx baton …`, pointed at this checkout's data folder unless BATON_DATA_DIR /
// DATABASE_URL say otherwise. `baton mcp` goes straight to its fast-start launcher (plain Node,
// prebuilt bundle) because MCP clients wait on it; every other command runs the TypeScript CLI
// through tsx's loader.
import path from "node:path";
import { fileURLToPath } from "node:url";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
process.env.BATON_DATA_DIR ||= path.join(projectRoot, "data");
const [command, ...args] = process.argv.slice(2);

if (command === "mcp") {
  const { launch } = await import("../lib/mcp/launch.mjs");
  process.exitCode = await launch(args);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  const { main } = await import("../lib/cli/main.ts");
  process.exitCode = await main(process.argv.slice(2));
}
