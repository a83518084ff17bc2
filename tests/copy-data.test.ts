import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { ensureMigrated } from "../lib/database/migrate";
import { connectStdioClient } from "./support/mcp-clients";
import { startPostgresCluster } from "./support/postgres-cluster";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "..");

/** A database of its own on the run's PostgreSQL, with `setup` run in it first. */
async function database(name: string, setup: string[] = []): Promise<string> {
  const admin = new pg.Client({ connectionString: process.env.BATON_TEST_POSTGRES_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = process.env.BATON_TEST_POSTGRES_ADMIN_URL!.replace(/\/postgres$/, `/${name}`);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const statement of setup) await client.query(statement);
  } finally {
    await client.end();
  }
  return url;
}

/** Every table of the database's schema with its row count: what "exactly as it was" compares. */
async function contentsOf(url: string): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename");
    const counts: Record<string, number> = {};
    for (const { name } of rows) counts[name] = (await client.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM "${name}"`)).rows[0].n;
    return counts;
  } finally {
    await client.end();
  }
}

/** `baton copy-data --to <url>` from a fresh desk, as an operator runs it; `prepare` first fills the desk's database (its URL). */
async function copyDataTo(url: string, prepare: (deskUrl: string) => Promise<void> = async () => {}): Promise<{ code: number; stderr: string }> {
  // In the test's data folder, which its teardown removes.
  const desk = fs.mkdtempSync(path.join(process.env.BATON_DATA_DIR!, "copy-desk-"));
  const env = { ...process.env, BATON_DATA_DIR: desk, DATABASE_URL: `file:${path.join(desk, "baton.db")}` };
  await ensureMigrated(env.DATABASE_URL);
  await prepare(env.DATABASE_URL);
  return run(process.execPath, ["bin/baton.mjs", "copy-data", "--to", url], { cwd: root, env }).then(
    ({ stderr }) => ({ code: 0, stderr }),
    (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
  );
}

/** `baton <args>` on `url`, as a team member runs it: its exit code and standard error. */
function batonOn(url: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; stderr: string }> {
  return run(process.execPath, ["bin/baton.mjs", ...args], { cwd: root, env: { ...process.env, ...env, DATABASE_URL: url } }).then(
    ({ stderr }) => ({ code: 0, stderr }),
    (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
  );
}

describe("every Baton start checks the database before it creates its tables", () => {
  it("refuses another application's database (a table of its own, or another Prisma application's migrations) and leaves it exactly as it was", async () => {
    const plain = await database("start_foreign", ["CREATE TABLE handoffs (id int PRIMARY KEY, note text)", "INSERT INTO handoffs VALUES (1, 'theirs')"]);
    const prisma = await database("start_other_prisma", [
      'CREATE TABLE "_prisma_migrations" (id varchar(36) PRIMARY KEY, checksum varchar(64) NOT NULL, finished_at timestamptz, migration_name varchar(255) NOT NULL, logs text, rolled_back_at timestamptz, started_at timestamptz NOT NULL DEFAULT now(), applied_steps_count int NOT NULL DEFAULT 0)',
      "INSERT INTO \"_prisma_migrations\" (id, checksum, finished_at, migration_name) VALUES ('1', 'x', now(), '20240101000000_init')",
      'CREATE TABLE "Invoice" (id serial PRIMARY KEY)',
    ]);
    for (const [url, shown] of [
      [plain, "handoffs"],
      [prisma, "Invoice, _prisma_migrations"],
    ]) {
      const before = await contentsOf(url);
      for (const args of [["token", "list"], ["mcp"]]) {
        const refused = await batonOn(url, args);
        expect(refused.code, args[0]).toBe(1);
        expect(refused.stderr.trim().split("\n"), refused.stderr).toHaveLength(1);
        expect(refused.stderr).toContain(`holds another application's tables (${shown}); Baton creates its tables only in an empty database or one of its own`);
      }
      expect(await contentsOf(url)).toEqual(before);
    }
  });

  it("a start that waits 30 s for another process's migration says so in one line, and creates nothing", async () => {
    const url = await database("start_while_migrating");
    // Another Baton process applying migrations holds this (lib/database/migrate.ts's key).
    const migrating = new pg.Client({ connectionString: url });
    await migrating.connect();
    try {
      await migrating.query("SELECT pg_advisory_lock(7245118)");
      const started = performance.now();
      const waited = await batonOn(url, ["token", "list"]);
      expect(waited.code).toBe(1);
      expect(waited.stderr).toBe("baton token: another Baton process has been applying migrations to this database for 30 s; start again once it is done\n");
      expect((performance.now() - started) / 1000).toBeGreaterThan(29);
    } finally {
      await migrating.end();
    }
    expect(await contentsOf(url)).toEqual({});
  }, 60_000);

  it("a database another role owns: one line saying Baton's user must own it, and nothing created", async () => {
    const url = await database("start_not_owner");
    const admin = new pg.Client({ connectionString: process.env.BATON_TEST_POSTGRES_ADMIN_URL });
    await admin.connect();
    await admin.query("DO $$ BEGIN CREATE ROLE baton_stranger LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$");
    await admin.end();
    const refused = await batonOn(url.replace("//postgres@", "//baton_stranger@"), ["token", "list"]);
    expect(refused).toEqual({
      code: 1,
      stderr:
        "baton token: Baton's database user cannot create its tables here (permission denied for schema public): make that user the database's owner (CREATE DATABASE baton OWNER baton), as the README's team set-up does; nothing was created\n",
    });
    expect(await contentsOf(url)).toEqual({});
  });

  it("TLS asked of a server without it: one line saying so, not an 'unexpected error'", async () => {
    const url = await database("start_tls");
    const refused = await batonOn(`${url}?sslmode=verify-full`, ["token", "list"]);
    expect(refused).toEqual({
      code: 1,
      stderr: "baton token: the database does not accept TLS connections, which DATABASE_URL asks for (sslmode): enable TLS on the server, or take sslmode out of the URL on a network you trust\n",
    });
  });

  it("a BATON_DB_POOL_SIZE that is no size (0, -3, ten): the command and npm start's server refuse in one line naming it, and serve nothing", async () => {
    const url = await database("start_pool_size");
    for (const size of ["0", "-3", "ten"]) {
      const message = `BATON_DB_POOL_SIZE must be a whole number from 1 to 1,000 (it is "${size}"); fix it or leave it unset for 10`;
      expect(await batonOn(url, ["token", "list"], { BATON_DB_POOL_SIZE: size })).toEqual({ code: 1, stderr: `baton token: ${message}\n` });
      const served = await run(path.join(root, "node_modules", ".bin", "tsx"), ["scripts/serve.ts"], {
        cwd: root,
        env: { ...process.env, DATABASE_URL: url, BATON_DB_POOL_SIZE: size, PORT: "0" },
        timeout: 60_000,
      }).then(
        () => ({ code: 0, stderr: "" }),
        (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
      );
      expect(served).toEqual({ code: 1, stderr: `baton: ${message}\n` });
    }
    expect(await batonOn(url, ["token", "list"], { BATON_DB_POOL_SIZE: "3" })).toEqual({ code: 0, stderr: "no tokens; create one with `baton token create --name NAME --role operator`\n" });
  }, 120_000);

  it("migrates an empty database, and one of Baton's own again without complaint", async () => {
    const url = await database("start_empty");
    const listed = { code: 0, stderr: "no tokens; create one with `baton token create --name NAME --role operator`\n" };
    expect(await batonOn(url, ["token", "list"])).toEqual(listed);
    expect(Object.keys(await contentsOf(url))).toContain("handoffs");
    expect(await batonOn(url, ["token", "list"])).toEqual(listed);
  });
});

describe("a server that asks for a password", () => {
  it("given none (DATABASE_URL as baton setup claude-code writes it), every door says to set PGPASSWORD or ~/.pgpass; with PGPASSWORD it works", async () => {
    const cluster = await startPostgresCluster();
    try {
      const admin = new pg.Client({ connectionString: cluster.url("postgres") });
      await admin.connect();
      await admin.query("CREATE ROLE baton LOGIN PASSWORD 'Qz7secretvalue'");
      await admin.query("CREATE DATABASE baton OWNER baton");
      await admin.end();
      fs.writeFileSync(path.join(cluster.dir, "data", "pg_hba.conf"), "local all all trust\nhost all postgres 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 scram-sha-256\n");
      cluster.stop();
      cluster.start();
      const url = cluster.url("baton").replace("//postgres@", "//baton@");
      for (const args of [["token", "list"], ["mcp"]]) {
        const started = performance.now();
        const refused = await batonOn(url, args);
        // pg left that connection open: the process waited out the server's 60 s authentication_timeout.
        expect((performance.now() - started) / 1000, args[0]).toBeLessThan(10);
        expect(refused.code, args[0]).toBe(1);
        expect(refused.stderr.trim().split("\n"), refused.stderr).toHaveLength(1);
        expect(refused.stderr).toContain("the database asks for a password and none was given: set PGPASSWORD or add the password to ~/.pgpass");
      }
      const listed = await batonOn(url, ["token", "list"], { PGPASSWORD: "Qz7secretvalue" });
      expect(listed).toEqual({ code: 0, stderr: "no tokens; create one with `baton token create --name NAME --role operator`\n" });
      // ~/.pgpass (here PGPASSFILE), as the refusal says: it works, and says nothing more (pg's own
      // reading of it printed a DeprecationWarning under every command); one others may read is ignored.
      const pgpass = path.join(cluster.dir, "pgpass");
      const port = new URL(url).port;
      fs.writeFileSync(pgpass, `# Baton\nother.host:${port}:baton:baton:wrong\n127.0.0.1:${port}:*:baton:Qz7secretvalue\n`, { mode: 0o600 });
      expect(await batonOn(url, ["token", "list"], { PGPASSFILE: pgpass })).toEqual(listed);
      fs.chmodSync(pgpass, 0o644);
      const exposed = await batonOn(url, ["token", "list"], { PGPASSFILE: pgpass });
      expect(exposed.code).toBe(1);
      expect(exposed.stderr).toContain(`password file "${pgpass}" has group or world access`);
    } finally {
      cluster.destroy();
    }
  }, 120_000);
});

describe("copy-data checks its target before it touches it", () => {
  it("refuses another application's database and leaves it exactly as it was: no table of Baton's is created", async () => {
    const url = await database("copy_foreign", ["CREATE TABLE orders (id serial PRIMARY KEY, total int)", "INSERT INTO orders (total) VALUES (12), (30)"]);
    const before = await contentsOf(url);
    const refused = await copyDataTo(url);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("holds another application's tables (orders)");
    expect(await contentsOf(url)).toEqual(before);
  });

  it("refuses another Prisma application's database (its migrations are not Baton's), unchanged", async () => {
    const url = await database("copy_other_prisma", [
      'CREATE TABLE "_prisma_migrations" (id varchar(36) PRIMARY KEY, checksum varchar(64) NOT NULL, finished_at timestamptz, migration_name varchar(255) NOT NULL, logs text, rolled_back_at timestamptz, started_at timestamptz NOT NULL DEFAULT now(), applied_steps_count int NOT NULL DEFAULT 0)',
      "INSERT INTO \"_prisma_migrations\" (id, checksum, migration_name) VALUES ('1', 'x', '20240101000000_init')",
      'CREATE TABLE "User" (id serial PRIMARY KEY)',
    ]);
    const before = await contentsOf(url);
    expect((await copyDataTo(url)).code).toBe(1);
    expect(await contentsOf(url)).toEqual(before);
  });

  it("fills an empty database: Baton's tables created and copied in one go", async () => {
    const url = await database("copy_empty");
    const copied = await copyDataTo(url);
    expect(copied.code, copied.stderr).toBe(0);
    expect(Object.keys(await contentsOf(url))).toEqual(expect.arrayContaining(["_prisma_migrations", "handoffs", "handoff_entries"]));
  });
});

describe("after copy-data, search finds what the source held", () => {
  it("entries the source's search index had not taken yet (pending, written since its last batch) are indexed on the copy too", async () => {
    const url = await database("copy_pending");
    const copied = await copyDataTo(url, async (deskUrl) => {
      const writer = await connectStdioClient({ env: { DATABASE_URL: deskUrl } });
      try {
        const created = await writer.client.callTool({ name: "create_handoff", arguments: { title: "Moving day", content: "pack the quokka first" } });
        const { id } = (created.structuredContent as { handoff: { id: string } }).handoff;
        for (const content of ["then the numbat", "last the bilby"]) {
          expect((await writer.client.callTool({ name: "add_to_handoff", arguments: { id, type: "progress", content } })).isError).not.toBe(true);
        }
      } finally {
        await writer.client.close();
      }
      const desk = new Database(deskUrl.replace(/^file:/, ""), { readonly: true });
      try {
        const { pending } = desk.prepare("SELECT COUNT(*) AS pending FROM handoff_entries e WHERE NOT EXISTS (SELECT 1 FROM entry_search_owners o WHERE o.seq = e.seq)").get() as { pending: number };
        expect(pending).toBe(3);
      } finally {
        desk.close();
      }
    });
    expect(copied.code, copied.stderr).toBe(0);
    const target = new pg.Client({ connectionString: url });
    await target.connect();
    try {
      // PostgreSQL's search reads an entry through its owner row: one for each entry, the pending ones included.
      const { rows } = await target.query<{ entries: number; owners: number }>(
        "SELECT (SELECT COUNT(*)::int FROM handoff_entries) AS entries, (SELECT COUNT(*)::int FROM entry_search_owners) AS owners",
      );
      expect(rows[0]).toEqual({ entries: 3, owners: 3 });
    } finally {
      await target.end();
    }
  }, 120_000);
});

describe("after copy-data, ids go on where the source's stopped", () => {
  it("a change's seq continues past the last one the source handed out, so the webhook cursor copied with it still sees new writes (the changes table was empty after a quiet day)", async () => {
    const received: string[] = [];
    const receiver = http.createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString()));
      request.on("end", () => {
        received.push(body);
        response.end("ok");
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const url = await database("copy_counters");
    const copied = await copyDataTo(url, async (deskUrl) => {
      const added = await batonOn(deskUrl, ["webhook", "add", receiverUrl, "--events", "entry.created"]);
      expect(added.code, added.stderr).toBe(0);
      // What a day of use leaves: 50 changes handed out, the server's webhook dispatcher past them, and pruning after a quiet day emptied the table.
      const desk = new Database(deskUrl.replace(/^file:/, ""));
      desk.exec(`INSERT INTO changes (subject, action) SELECT 'agent', 'updated' FROM (${Array.from({ length: 50 }, () => "SELECT 1").join(" UNION ALL ")})`);
      desk.exec("INSERT INTO webhook_cursor (id, seq) VALUES (1, 50); DELETE FROM changes");
      desk.close();
    });
    expect(copied.code, copied.stderr).toBe(0);

    // The team's server on the copy: its webhook dispatcher, and a write through baton mcp.
    const dispatcher = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "support", "webhook-dispatcher-worker.ts"), "{}"], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: url },
      stdio: ["pipe", "pipe", "inherit"],
    });
    const writer = await connectStdioClient({ env: { DATABASE_URL: url } });
    try {
      await new Promise<void>((resolve, reject) => {
        dispatcher.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve());
        dispatcher.once("exit", (code) => reject(new Error(`the dispatcher exited (${code}) before it was ready`)));
      });
      const created = await writer.client.callTool({ name: "create_handoff", arguments: { title: "After the move", content: "first entry on PostgreSQL" } });
      expect(created.isError).not.toBe(true);
      await expect.poll(() => received.length, { timeout: 15_000 }).toBe(1);
      expect(JSON.parse(received[0])).toMatchObject({ event: "entry.created", data: { entry: { content: "first entry on PostgreSQL" } } });
    } finally {
      await writer.client.close();
      dispatcher.stdin!.end();
      await new Promise((resolve) => dispatcher.once("exit", resolve));
      receiver.close();
    }
  }, 120_000);
});
