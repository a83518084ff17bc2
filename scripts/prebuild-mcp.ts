/**
 * Builds the fast-start bundle of `baton mcp` (see lib/mcp/launch.mjs) at install time, so the
 * first start of the MCP server already answers within 400 ms. A failure only costs speed:
 * `baton mcp` falls back to the TypeScript sources, so it warns instead of failing the install.
 */
import { ensureMcpBundle } from "../lib/mcp/bundle";

try {
  const entry = await ensureMcpBundle();
  console.log(`baton: MCP fast-start bundle ready (${entry})`);
} catch (error) {
  console.warn(`baton: could not build the MCP fast-start bundle (${(error as Error).message}); \`baton mcp\` will start from the sources, more slowly`);
}
