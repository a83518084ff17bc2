import "server-only";
import type { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { describeDatabase } from "../config";
import type { ClientSide } from "../handoffs/schemas";
import { database } from "../database";
import { ensureMigrated } from "../database/migrate";
import { StdioAnswerTransport } from "./answer-lines";
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
 * Answers a line that is not a JSON-RPC message as JSON-RPC 2.0 says: -32700 (Parse error) for
 * text that is not JSON, -32600 (Invalid Request) for JSON that is no JSON-RPC message, both with
 * id null (no id could be read). The SDK's transport only reports such a line to onerror and
 * drops it, which leaves a client waiting; the next line is read as before either way.
 */
function answerUnreadableLines(transport: StdioServerTransport): void {
  const report = transport.onerror;
  transport.onerror = (error) => {
    // JSON.parse throws SyntaxError; the SDK's JSONRPCMessageSchema (zod 4) throws a ZodError.
    const code = error instanceof SyntaxError ? ErrorCode.ParseError : error instanceof z.core.$ZodError ? ErrorCode.InvalidRequest : null;
    if (code === null) return report?.(error);
    const message =
      code === ErrorCode.ParseError
        ? "Parse error: a line was not JSON; send one JSON-RPC message per line"
        : "Invalid Request: a line was JSON but not a JSON-RPC 2.0 request, notification or response";
    log(message);
    // The SDK's types allow no id on an error (JSON-RPC 2.0 requires null when it cannot be read).
    const answer = { jsonrpc: "2.0", id: null, error: { code, message } } as unknown as JSONRPCMessage;
    transport.send(answer).catch((sendError: unknown) => log(`could not answer an unreadable line: ${String(sendError)}`));
  };
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
    throw new Error(`could not prepare the database ${describeDatabase()} (${reason}); check BATON_DATA_DIR / DATABASE_URL and that the folder is writable`);
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
  const transport = new StdioAnswerTransport();
  await server.connect(transport);
  answerUnreadableLines(transport);
  process.stdin.once("end", () => void server.close());
  log(`serving over stdio as ${options.defaultClient} (calls without as_client); database ${describeDatabase()}`);
  await closed;
}
