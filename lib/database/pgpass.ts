import "server-only";
import pgpass from "pgpass";

/** What pg hands a password function: the connection's parameters. */
type Target = { host?: string | null; port?: number | string | null; database?: string | null; user?: string | null };

/**
 * The password libpq's password file gives this connection (PGPASSFILE, else ~/.pgpass;
 * %APPDATA%\postgresql\pgpass.conf on Windows), or undefined: read by the pgpass module, the
 * reader node-postgres itself uses. pg still reads the file on its own when no password is given,
 * but then says on every process's stderr that it will stop (a DeprecationWarning under each
 * command, hook and `baton mcp` start), and asks for a password function calling pgpass instead,
 * which this is. `baton setup claude-code` leaves DATABASE_URL's password out of what it writes,
 * pointing here. A file others may read is ignored, with pgpass's warning on stderr.
 */
export function pgpassPassword(target: Target): Promise<string | undefined> {
  return new Promise((resolve) => pgpass(target, resolve));
}
