/**
 * A real PostgreSQL server for tests, the bench and scripts: Debian's PostgreSQL 15 started in a
 * temporary folder on a free loopback port, a database per test file. PostgreSQL refuses to run
 * as root, so as root the folder belongs to `postgres` and every binary runs through runuser.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort } from "./free-port";

const BIN = process.env.BATON_PG_BIN || "/usr/lib/postgresql/15/bin";
const asRoot = process.getuid?.() === 0;

function pgTool(tool: string, args: string[], options: { allowFailure?: boolean } = {}): string {
  const command = asRoot ? "runuser" : path.join(BIN, tool);
  const fullArgs = asRoot ? ["-u", "postgres", "--", path.join(BIN, tool), ...args] : args;
  const result = spawnSync(command, fullArgs, { encoding: "utf8" });
  if (result.status !== 0 && !options.allowFailure) {
    throw new Error(`${tool} ${args.join(" ")} failed (${result.status}): ${result.stderr || result.stdout}`);
  }
  return result.stdout;
}

export function postgresAvailable(): boolean {
  return fs.existsSync(path.join(BIN, "pg_ctl"));
}

export type PostgresCluster = {
  port: number;
  dir: string;
  /** The URL of one database on this server. */
  url(database: string): string;
  /** Creates an empty database and answers its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server (`fast`: ends sessions; `immediate`: as if it crashed). */
  stop(mode?: "fast" | "immediate"): void;
  start(): void;
  /** Stops it and removes its folder. */
  destroy(): void;
};

/**
 * Starts a fresh cluster. `durable: false` (tests) turns fsync off: the data is thrown away
 * afterwards and a test never survives a machine crash; the bench keeps it on.
 */
export async function startPostgresCluster({ durable = false }: { durable?: boolean } = {}): Promise<PostgresCluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-pg-"));
  fs.chmodSync(dir, 0o755);
  const data = path.join(dir, "data");
  if (asRoot) execFileSync("chown", ["postgres", dir]);
  pgTool("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C.UTF-8"]);
  const port = await freePort();
  const options = [`-p ${port}`, `-k ${dir}`, "-c listen_addresses=127.0.0.1", "-c max_connections=300", ...(durable ? [] : ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"])].join(" ");
  const start = () => pgTool("pg_ctl", ["-D", data, "-o", options, "-l", path.join(dir, "log"), "-w", "-t", "60", "start"]);
  const stop = (mode: "fast" | "immediate" = "fast") => pgTool("pg_ctl", ["-D", data, "-m", mode, "-w", "stop"], { allowFailure: true });
  start();
  const url = (database: string) => `postgresql://postgres@127.0.0.1:${port}/${database}`;
  return {
    port,
    dir,
    url,
    start,
    stop,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: url("postgres") });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name.replace(/"/g, "")}"`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    destroy() {
      stop("immediate");
      // The server's last children may still be closing files in it (ENOTEMPTY, EBUSY): retried.
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}
