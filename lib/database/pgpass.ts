import "server-only";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * The password file libpq reads (PGPASSFILE, else ~/.pgpass; %APPDATA%\postgresql\pgpass.conf on
 * Windows), read by Baton: node-postgres still reads it itself, but says on every process's stderr
 * that it will stop (a DeprecationWarning under each command, hook and `baton mcp` start), and
 * `baton setup claude-code` leaves DATABASE_URL's password out of what it writes, pointing here.
 * Its rules are libpq's: lines `host:port:database:user:password`, `*` matching any value in the
 * first four, `\:` and `\\` escaped, the first match wins; a file others may read is ignored, saying so.
 */
type Target = { host?: string | null; port?: number | string | null; database?: string | null; user?: string | null };

const DEFAULT_PORT = 5432;

function passwordFile(env: NodeJS.ProcessEnv): string {
  if (env.PGPASSFILE) return env.PGPASSFILE;
  if (process.platform === "win32") return path.join(env.APPDATA ?? ".", "postgresql", "pgpass.conf");
  return path.join(env.HOME ?? os.homedir(), ".pgpass");
}

/** A line's five fields, `\:` and `\\` unescaped; null for a comment or a line with fewer. */
function fieldsOf(line: string): string[] | null {
  if (line.startsWith("#")) return null;
  const fields: string[] = [];
  let field = "";
  for (let at = 0; at < line.length; at++) {
    const char = line[at];
    if (char === "\\" && at + 1 < line.length) field += line[++at];
    else if (char === ":" && fields.length < 4) {
      fields.push(field);
      field = "";
    } else field += char;
  }
  fields.push(field);
  return fields.length === 5 && fields[4] !== "" ? fields : null;
}

function matches(pattern: string, value: string): boolean {
  return pattern === "*" || pattern === value;
}

/** The password the file gives for this connection, or undefined (no file, no matching line). */
export function pgpassPassword(target: Target, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const file = passwordFile(env);
  let text: string;
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) return undefined;
    if (process.platform !== "win32" && (stat.mode & 0o077) !== 0) {
      process.stderr.write(`baton: WARNING: password file "${file}" has group or world access; permissions should be u=rw (0600) or less, so it is ignored\n`);
      return undefined;
    }
    text = fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const wanted = [target.host ?? "localhost", String(target.port || DEFAULT_PORT), target.database ?? "", target.user ?? ""];
  for (const line of text.split(/\r?\n/)) {
    const fields = fieldsOf(line);
    if (!fields) continue;
    const portMatches = fields[1] === "*" || Number(fields[1]) === Number(wanted[1]);
    if (matches(fields[0], wanted[0]) && portMatches && matches(fields[2], wanted[2]) && matches(fields[3], wanted[3])) return fields[4];
  }
  return undefined;
}
