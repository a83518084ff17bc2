import { Invalid } from "../../errors";
import { parseStdioArgs, STDIO_USAGE } from "../../mcp/client-identity";
import { serveStdio } from "../../mcp/serve-stdio";

/** How long after start-up the TypeScript server refreshes the fast-start bundle (see lib/mcp/launch.mjs). */
const BUNDLE_REFRESH_DELAY_MS = 3_000;

/**
 * Run from the TypeScript sources (through tsx), the server rebuilds the plain-JS bundle that
 * lib/mcp/launch.mjs starts from, a few seconds after start-up. The bundle itself does not.
 */
function refreshBundleLater(): void {
  const timer = setTimeout(() => {
    import("../../mcp/bundle")
      .then(({ ensureMcpBundle }) => ensureMcpBundle())
      .catch((error: unknown) => {
        process.stderr.write(`baton mcp: could not build the fast-start bundle (${error instanceof Error ? error.message : String(error)}); starts stay slower\n`);
      });
  }, BUNDLE_REFRESH_DELAY_MS);
  timer.unref();
}

/** `baton mcp [--as code|chat]`: the MCP tools over stdio, for Claude Desktop and Claude Code. */
export async function run(args: string[]): Promise<number> {
  let options;
  try {
    options = parseStdioArgs(args);
  } catch (error) {
    if (!(error instanceof Invalid)) throw error;
    process.stderr.write(`baton mcp: ${error.message}\n\n${STDIO_USAGE}\n`);
    return 2;
  }
  if (options.help) {
    process.stderr.write(`${STDIO_USAGE}\n`);
    return 0;
  }
  // A constant in the bundle, so esbuild drops this branch and the bundler with it.
  if (!process.env.BATON_MCP_BUNDLED) refreshBundleLater();
  try {
    await serveStdio({ defaultClient: options.defaultClient });
  } catch (error) {
    process.stderr.write(`baton mcp: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  return 0;
}
