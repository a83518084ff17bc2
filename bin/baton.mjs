#!/usr/bin/env node
// Entry point of `npx baton …`, pointed at the default data folder (lib/paths.mjs) unless BATON_DATA_DIR /
// DATABASE_URL say otherwise. `baton mcp` and `baton hook` go straight to their fast-start
// launchers (plain Node, prebuilt bundles) because MCP clients and Claude Code's hooks wait on
// them; every other command runs the TypeScript CLI through tsx's loader.
import { fileURLToPath } from "node:url";
import { defaultDataDir } from "../lib/paths.mjs";
import { exitUnlessSupportedNode } from "../lib/supported-node.mjs";

exitUnlessSupportedNode();

process.env.BATON_DATA_DIR ||= defaultDataDir();
const [command, ...args] = process.argv.slice(2);

if (command === "mcp") {
  const { launch } = await import("../lib/mcp/launch.mjs");
  process.exitCode = await launch(args);
} else if (command === "hook") {
  const { launchHook } = await import("../lib/hooks/launch.mjs");
  process.exitCode = await launchHook(args);
} else {
  const { register } = await import("tsx/esm/api");
  // The checkout's tsconfig, whatever the current folder: its paths resolve "server-only".
  register({ tsconfig: fileURLToPath(new URL("../tsconfig.json", import.meta.url)) });
  const { main } = await import("../lib/cli/main.ts");
  process.exitCode = await main(process.argv.slice(2));
}
