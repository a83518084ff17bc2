#!/usr/bin/env node
// Entry point of `npx baton …`, pointed at the default data folder (lib/paths.mjs) unless BATON_DATA_DIR /
// DATABASE_URL say otherwise. `baton mcp` goes straight to its fast-start launcher (plain Node,
// prebuilt bundle) because MCP clients wait on it; every other command runs the TypeScript CLI
// through tsx's loader.
import { fileURLToPath } from "node:url";
import { defaultDataDir } from "../lib/paths.mjs";

process.env.BATON_DATA_DIR ||= defaultDataDir();
const [command, ...args] = process.argv.slice(2);

if (command === "mcp") {
  const { launch } = await import("../lib/mcp/launch.mjs");
  process.exitCode = await launch(args);
} else {
  const { register } = await import("tsx/esm/api");
  // The checkout's tsconfig, whatever the current folder: its paths resolve "server-only".
  register({ tsconfig: fileURLToPath(new URL("../tsconfig.json", import.meta.url)) });
  const { main } = await import("../lib/cli/main.ts");
  process.exitCode = await main(process.argv.slice(2));
}
