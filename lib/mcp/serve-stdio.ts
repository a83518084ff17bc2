import "server-only";
import { databaseUrl, describeDatabase } from "../config";
import { engineOf } from "../database/engine";
import { Conflict, Unavailable } from "../errors";
import type { ClientSide } from "../handoffs/schemas";
import { database } from "../database";
import { ensureMigrated } from "../database/migrate";
import { StdioTransport } from "./stdio-transport";
import { createMcpServer } from "./create-server";
import { deliverRequestsDirectly, reportCancelledRequests } from "./tool-kit";
import { setProcessSide } from "../caller";
import { loadHandoffs } from "./domain";
import { oneLine } from "../one-line";

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

/** The signals that stop the server in order, and what each says. */
const SIGNALS = { SIGHUP: "the client's terminal or session ended", SIGTERM: "asked to stop", SIGINT: "interrupted" } as const;

/** Output errors that mean the client closed its end, not that writing failed. */
const CLIENT_GONE = new Set(["EPIPE", "ECONNRESET"]);

/**
 * Serves the MCP tools on stdin/stdout until the client goes away (stdin ends, its end of stdout
 * closes) or a signal stops it (SIGHUP, SIGTERM, SIGINT), and resolves to the exit code: 0 then,
 * 1 when stdout failed otherwise. The calls in flight need no deadline of their own: each waits
 * at most the database's limits (10 s for SQLite's write lock; PostgreSQL's statement, query and
 * pool timeouts). stdout
 * carries only MCP messages; everything else goes to stderr. Applies pending migrations first,
 * so a fresh data folder works.
 */
export async function serveStdio(options: ServeStdioOptions): Promise<number> {
  try {
    await ensureMigrated();
  } catch (error) {
    // Refused for a reason it names with what to do (busy, no connection left, a setting; another
    // application's database, or a newer Baton's): said as it is.
    if (error instanceof Unavailable || error instanceof Conflict) throw error;
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
  reportCancelledRequests(server, (id) => transport.endedUnanswered(id));
  let exitCode = 0;
  let stopping = false;
  /**
   * The one way the server ends: the calls read so far run to their end (a write they make
   * commits; answered while the client still reads), then the server closes, in one line on
   * stderr. Process.exit would cut them off midway, and a half-sent answer line with them.
   */
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    const running = transport.inFlight;
    log(`${why}; ${running === 0 ? "stopping" : `finishing ${running === 1 ? "the call" : `the ${running} calls`} in flight, then stopping`}`);
    void transport.settled().then(() => server.close());
  };
  transport.onoutputfailure = (error) => {
    if (CLIENT_GONE.has(error.code ?? "")) return stop(`the client closed its end of stdout (${error.code}): no answer can reach it, no new call starts`);
    exitCode = 1;
    stop(`cannot write to stdout (${oneLine(error.message)}): no new call starts`);
  };
  await server.connect(transport);
  deliverRequestsDirectly(server, transport);
  // The client went away: answer what it asked before it did, then stop.
  process.stdin.once("end", () => stop("stdin ended: the client is done"));
  process.stdin.once("error", (error: NodeJS.ErrnoException) => stop(`stdin failed (${error.code ?? oneLine(error.message)}): the client is gone`));
  // Told to stop (the client's terminal or session ended: SIGHUP): as when the client leaves, but
  // reading stops at once. A second signal ends the process at once, as Node's default does.
  const onSignal = (signal: NodeJS.Signals) => {
    for (const other of Object.keys(SIGNALS) as NodeJS.Signals[]) process.off(other, onSignal);
    transport.stopReading();
    stop(`${signal}: ${SIGNALS[signal as keyof typeof SIGNALS]}; no new call starts`);
  };
  for (const signal of Object.keys(SIGNALS)) process.once(signal, onSignal);
  log(`serving over stdio as ${options.defaultClient} (calls without as_client); database ${describeDatabase()}`);
  await closed;
  return exitCode;
}
