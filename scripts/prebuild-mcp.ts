/**
 * Prebuilds `baton mcp` (see lib/mcp/launch.mjs) at install time, so the first start of the MCP
 * server already answers within 400 ms. A failure only costs speed: `baton mcp` falls back to
 * the TypeScript sources, so it warns instead of failing the install.
 */
import { ensurePrebuilt } from "../lib/prebuilt/build";

try {
  const entry = await ensurePrebuilt("mcp");
  console.log(`baton: MCP server prebuilt (${entry})`);
} catch (error) {
  console.warn(`baton: could not prebuild the MCP server (${(error as Error).message}); \`baton mcp\` will start from the sources, more slowly`);
}
