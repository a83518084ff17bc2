import "server-only";
import type pg from "pg";
import { pgpassPassword } from "./pgpass";

/** `2026-11-22 06:54:51.47` (Postgres drops trailing zeros) → `2026-11-22T06:54:51.470+00:00`. */
function storedFormOf(value: string): string {
  const [date, time] = value.split(" ");
  const [whole, fraction = ""] = time.split(".");
  return `${date}T${whole}.${fraction.padEnd(3, "0").slice(0, 3)}+00:00`;
}

let loading: Promise<typeof pg> | undefined;

/**
 * node-postgres, loaded when a PostgreSQL database is first used: a process on the embedded
 * SQLite never loads it (about 35 ms of the hooks' start, which Claude Code waits for). Its type
 * parsers are set once, before any query: values as SQLite hands them to the domain, counts as
 * numbers and timestamps in Prisma's stored form (`2026-11-22T06:54:51.471+00:00`; columns are
 * `timestamp(3)` holding UTC).
 */
export function pgDriver(): Promise<typeof pg> {
  return (loading ??= import("pg").then(({ default: driver }) => {
    driver.types.setTypeParser(driver.types.builtins.INT8, (value) => Number(value));
    driver.types.setTypeParser(driver.types.builtins.NUMERIC, (value) => Number(value));
    driver.types.setTypeParser(driver.types.builtins.TIMESTAMP, storedFormOf);
    driver.types.setTypeParser(driver.types.builtins.TIMESTAMPTZ, (value) => new Date(value).toISOString().replace("Z", "+00:00"));
    // A connection whose URL and PGPASSWORD give no password asks ~/.pgpass through Baton's reader
    // (lib/database/pgpass.ts), not pg's own, which prints a DeprecationWarning in every process.
    // pg calls a function here with the connection's parameters; its types know only a string.
    (driver.defaults as { password?: unknown }).password = (target: Parameters<typeof pgpassPassword>[0]) => pgpassPassword(target);
    return driver;
  }));
}
