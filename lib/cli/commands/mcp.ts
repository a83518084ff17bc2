import "server-only";
import { closeDatabase } from "../../database";
import { Invalid } from "../../errors";
import { parseStdioArgs, STDIO_USAGE } from "../../mcp/client-identity";
import { serveStdio } from "../../mcp/serve-stdio";
import { visibleControls } from "../../validation";

/** `baton mcp [--as code|chat]`: the MCP tools over stdio, for Claude Desktop and Claude Code. */
export async function run(args: string[]): Promise<number> {
  let options;
  try {
    options = parseStdioArgs(args);
  } catch (error) {
    if (!(error instanceof Invalid)) throw error;
    process.stderr.write(`baton mcp: ${visibleControls(error.message)}\n\n${STDIO_USAGE}\n`);
    return 2;
  }
  if (options.help) {
    // Asked for, the usage is the answer on standard output, as every command's (`baton mcp --help | less`).
    // No server runs, so nothing else handles a reader that left: `| head -1` ends quietly.
    process.stdout.on("error", () => undefined);
    process.stdout.write(`${STDIO_USAGE}\n`);
    return 0;
  }
  try {
    return await serveStdio({ defaultClient: options.defaultClient });
  } catch (error) {
    process.stderr.write(`baton mcp: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    // PostgreSQL's pooled connections would keep the process alive until they idle out (10 s)
    // after the client went away.
    await closeDatabase();
  }
}
