import "server-only";
import { databaseUrl, describeDatabase } from "../config";
import { engineOf } from "../database/engine";
import type { ClientSide } from "../handoffs/schemas";
import { database } from "../database";
import { ensureMigrated } from "../database/migrate";
import { StdioTransport } from "./stdio-transport";
import { createMcpServer } from "./create-server";
import { setProcessSide } from "../caller";
import { loadHandoffs } from "./domain";

export type ServeStdioOptions = { defaultClient: ClientSide };

const log = (line: string) => process.stderr.write(`baton mcp: ${line}\n`);

/**
 * Loads the thread tools' domain, opens its database connection and starts reading the working
 * folder's git state (what a write records) once the client is connected, so the first call is
 * quick.
 */
async function warmUp(workingFolder: string): Promise<void> {
  try {
    await loadHandoffs();
    await database().ping();
  } catch (error) {
    log(`could not open the database: ${error instanceof Error ? error.message : String(error)}`);
  }
  const { gitStateForWrite } = await import("../git/read-state");
  void gitStateForWrite(workingFolder);
}

/**
 * Serves the MCP tools on stdin/stdout until stdin ends (the client went away). stdout carries
 * only MCP messages; everything else goes to stderr. Applies pending migrations first, so a
 * fresh data folder works.
 */
export async function serveStdio(options: ServeStdioOptions): Promise<void> {
  try {
    await ensureMigrated();
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    const check = engineOf(databaseUrl()) === "postgres" ? "check DATABASE_URL and that the server is up" : "check BATON_DATA_DIR and that the folder is writable";
    throw new Error(`could not prepare the database ${describeDatabase()} (${reason}); ${check}`);
  }
  const workingFolder = process.cwd();
  // This process serves one client: its side is the process caller's (lib/caller.ts), for every call that names none.
  setProcessSide(options.defaultClient);
  const server = createMcpServer({ log, subscriptions: true, workingFolder });
  const closed = new Promise<void>((resolve) => {
    // The factory's own close handler (ending resource subscriptions) runs first.
    const previous = server.server.onclose;
    server.server.onclose = () => {
      previous?.();
      resolve();
    };
  });
  server.server.oninitialized = () => void warmUp(workingFolder);
  const transport = new StdioTransport(log);
  await server.connect(transport);
  // The client went away: answer what it asked before it did, then stop.
  process.stdin.once("end", () => void transport.settled().then(() => server.close()));
  log(`serving over stdio as ${options.defaultClient} (calls without as_client); database ${describeDatabase()}`);
  await closed;
}
