/**
 * Prebuilds Baton's commands (lib/prebuilt: `baton mcp`, `baton hook` and the rest of the CLI) at
 * install time, so their first starts are already fast: an MCP client waits 400 ms for
 * `initialize`, Claude Code for a SessionStart hook. A failure only costs speed: each command
 * falls back to the TypeScript sources, so it warns instead of failing the install.
 */
import { ensurePrebuilt } from "../lib/prebuilt/build";
import { PREBUILT_COMMANDS, type PrebuiltName } from "../lib/prebuilt/prebuilt.mjs";

for (const name of Object.keys(PREBUILT_COMMANDS) as PrebuiltName[]) {
  const command = name === "cli" ? "the other commands" : `\`baton ${name}\``;
  try {
    await ensurePrebuilt(name);
    console.log(`baton: ${command} prebuilt into node_modules/.cache/baton-${name}`);
  } catch (error) {
    console.warn(`baton: could not prebuild ${command} (${(error as Error).message}); they start from the sources, more slowly`);
  }
}
