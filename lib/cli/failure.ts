import "server-only";
import { databaseUrl, describeDatabase } from "../config";
import { isConnectionFailure } from "../database/postgres";
import { type DomainError, isDomainError, Unavailable } from "../errors";
import { errorLines } from "../formats/error-lines";
import { oneLine } from "../one-line";

/**
 * A failure no command answered itself (the database unreadable or away; a file that cannot
 * be written; a bug), as the one line a person reads: what happened and what to do. Commands
 * answer refusals (domain errors) themselves; this is the CLI's last word, never a stack trace.
 */
export function failureLine(error: unknown): string {
  if (isDomainError(error)) return oneLine(error.message);
  const code = typeof (error as { code?: unknown } | null)?.code === "string" ? (error as { code: string }).code : "";
  const reason = oneLine(error instanceof Error ? error.message.split("\n")[0] : String(error));
  const database = databaseNamed();
  if (code.startsWith("SQLITE_READONLY") || code === "SQLITE_PERM" || code === "SQLITE_AUTH") {
    return `cannot write the database ${database}: ${reason} (${code}); make it and its data folder writable, or choose another with BATON_DATA_DIR`;
  }
  if (code.startsWith("SQLITE_CANTOPEN")) {
    return `cannot open the database ${database}: ${reason} (${code}); check that its folder exists and can be read and written, or choose another with BATON_DATA_DIR`;
  }
  if (code === "SQLITE_NOTADB" || code.startsWith("SQLITE_CORRUPT")) {
    return `the database ${database} is not a usable SQLite database: ${reason} (${code}); restore it from a copy, or choose another with BATON_DATA_DIR`;
  }
  if (code.startsWith("SQLITE_")) return `the database ${database} failed: ${reason} (${code}); try again, or check the file and its folder`;
  if (isConnectionFailure(error) || /timeout expired/i.test(reason)) {
    return `the database ${database} is not answering (${reason}); check that the server is up and DATABASE_URL names it, then try again`;
  }
  if (code) return `${reason}${reason.includes(code) ? "" : ` (${code})`}`;
  return `unexpected error: ${reason}; BATON_DEBUG=1 shows where it happened`;
}

/**
 * What a command writes on stderr for a domain error it answers itself. A refusal of what was
 * asked (not found, invalid, a conflict) reads `baton <command>: <refused>:` with each problem
 * below it. Unavailable refuses nothing the user gave: the database was busy or did not answer,
 * and its message says so, that nothing was stored and to try again; it is that one line, as
 * failureLine and the other doors say it, never filed under "refused".
 */
export function domainErrorText(command: string, refused: string, error: DomainError): string {
  if (error instanceof Unavailable) return `baton ${command}: ${oneLine(error.message)}\n`;
  return `baton ${command}: ${refused}:\n${errorLines(error).map((line) => `  ${line}\n`).join("")}`;
}

/** The configured database for a message, or a stand-in when DATABASE_URL itself is what is wrong. */
function databaseNamed(): string {
  try {
    return oneLine(describeDatabase(databaseUrl()));
  } catch {
    return "(DATABASE_URL)";
  }
}

/** BATON_DEBUG=1: failures are reported with their stack, for a bug report. */
const debugging = () => Boolean(process.env.BATON_DEBUG) && process.env.BATON_DEBUG !== "0";

/** The stack, with BATON_DEBUG=1: a failure that should not have happened is reported with it. */
export function failureDetails(error: unknown): string | null {
  if (!debugging()) return null;
  return error instanceof Error && error.stack ? error.stack : String(error);
}

/**
 * Core code logs a failure it survived with the Error itself (`console.error(message, error)`, a
 * bundle whose copy in the artifact folder could not be written): in a server's log the stack
 * belongs there, but a person at a terminal reads one line. In the CLI such an Error is shown as
 * its message's first line, in parentheses (whole with BATON_DEBUG=1).
 */
export function logErrorsInOneLine(): void {
  if (debugging()) return;
  const log = console.error.bind(console);
  console.error = (...items: unknown[]) => log(...items.map((item) => (item instanceof Error ? `(${oneLine(item.message.split("\n")[0])})` : item)));
}
