#!/usr/bin/env node
// Entry point of `npx baton …` in a checkout, pointed at the default data folder (lib/paths.mjs)
// unless BATON_DATA_DIR / DATABASE_URL say otherwise (launchPrebuilt). Every command starts from
// a prebuilt bundle in plain Node (lib/prebuilt/), `baton mcp` and `baton hook` from small ones of
// their own because MCP clients and Claude Code's hooks wait on them; after an edit a command runs
// once from the TypeScript sources through tsx while the next start's bundle is built.
import { launchPrebuilt, prebuildInBackground } from "../lib/prebuilt/prebuilt.mjs";
import { endOnUnwritableOutput } from "../lib/closed-output.mjs";
import { exitUnlessSupportedNode } from "../lib/supported-node.mjs";

exitUnlessSupportedNode();

const [command, ...args] = process.argv.slice(2);
endOnUnwritableOutput({ stdout: command !== "mcp" });

if (command === "mcp") {
  const { launch } = await import("../lib/mcp/launch.mjs");
  process.exitCode = await launch(args);
} else if (command === "hook") {
  const { launchHook } = await import("../lib/hooks/launch.mjs");
  process.exitCode = await launchHook(args);
} else {
  process.exitCode = await launchPrebuilt("cli", process.argv.slice(2), { codeCache: "after-run", prebuildLater: () => prebuildInBackground("cli") });
}
