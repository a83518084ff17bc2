import { randomBytes } from "node:crypto";
import net from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBaton } from "./support/baton-command";
import { startHttpDoor, stopHttpDoor } from "./support/crash-rig";
import { freePort } from "./support/free-port";

/**
 * PostgreSQL with no connection left for Baton (SQLSTATE 53300: max_connections taken by several
 * instances' pools, or the role's CONNECTION LIMIT, which this test uses so as not to starve the
 * run's other files): every door refuses in one line that says so, that nothing was stored and
 * what to change, never "not answering, check that the server is up" (it is up, and answered);
 * once connections come free, the next request succeeds without restarting anything.
 */
const onPostgres = process.env.BATON_TEST_ENGINE === "postgres";
const NO_CONNECTION_LEFT =
  /the database has no connection left for Baton \(too many connections for role "[^"]+"\): PostgreSQL's max_connections, or the role's connection limit, is taken by its other clients and every Baton process \(each instance keeps up to BATON_DB_POOL_SIZE\); nothing of this request was stored; try again in a moment, and if it lasts raise max_connections or lower BATON_DB_POOL_SIZE/;
const LIMIT = 2;

async function asAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

describe.runIf(onPostgres)("PostgreSQL with no connection left for Baton", () => {
  const role = `baton_few_${randomBytes(4).toString("hex")}`;
  let url = "";
  let door: Awaited<ReturnType<typeof startHttpDoor>>;
  beforeAll(async () => {
    await asAdmin(async (client) => {
      await client.query(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT ${LIMIT}`);
      await client.query(`GRANT USAGE ON SCHEMA public TO ${role}`);
      await client.query(`GRANT ALL ON ALL TABLES IN SCHEMA public TO ${role}`);
      await client.query(`GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO ${role}`);
    });
    const limited = new URL(process.env.DATABASE_URL!);
    limited.username = role;
    url = limited.toString();
    door = await startHttpDoor({ DATABASE_URL: url });
  }, 60_000);
  afterAll(async () => {
    if (door) await stopHttpDoor(door.door, "SIGTERM");
    await asAdmin(async (client) => {
      await client.query(`DROP OWNED BY ${role}`);
      await client.query(`DROP ROLE ${role}`);
    });
  });

  /** Takes every connection the role may open, until let go. */
  async function takeEveryConnection(): Promise<() => Promise<void>> {
    const held: pg.Client[] = [];
    for (let index = 0; index < LIMIT; index++) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      held.push(client);
    }
    return async () => {
      for (const client of held) await client.end();
    };
  }

  it("REST answers 503 saying so, the CLI and baton mcp refuse in one line; nothing stored, and the next request once one is free succeeds", async () => {
    const append = () =>
      fetch(`${door.origin}/api/handoffs`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "No connection left", content: "first" }) });
    const letGo = await takeEveryConnection();
    try {
      const started = performance.now();
      const refused = await append();
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("2");
      const { error } = (await refused.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe("UNAVAILABLE");
      expect(error.message).toMatch(new RegExp(`^${NO_CONNECTION_LEFT.source}$`));
      // A few seconds of tries while connections may come free, not a request held for minutes.
      expect(performance.now() - started).toBeLessThan(12_000);

      const cli = await runBaton(["token", "list"], { env: { DATABASE_URL: url } });
      expect(cli.code).toBe(1);
      expect(cli.stderr).toMatch(new RegExp(`^baton token: ${NO_CONNECTION_LEFT.source}\n$`));

      const mcp = await runBaton(["mcp"], { env: { DATABASE_URL: url } });
      expect(mcp.code).toBe(1);
      expect(mcp.stderr.trim().split("\n")).toHaveLength(1);
      expect(mcp.stderr).toMatch(NO_CONNECTION_LEFT);
      // Not "check that the server is up": it is, and answered.
      expect(mcp.stderr).not.toMatch(/check DATABASE_URL/);
    } finally {
      await letGo();
    }
    const count = async () => asAdmin(async (client) => Number((await client.query("SELECT count(*) AS n FROM handoffs WHERE title = 'No connection left'")).rows[0].n));
    expect(await count()).toBe(0);
    expect(door.stderr()).not.toMatch(/^\s+at /m);
    // Connections free again: the same request goes through on the same server.
    expect((await append()).status).toBe(201);
    expect(await count()).toBe(1);
  }, 60_000);
});

/**
 * The run's PostgreSQL behind a port that can stop taking connections and come back, as a
 * server stopped and started again does for its clients (the run's own server is shared by the
 * files running beside this one). Stopping ends the connections it carried.
 */
async function stoppableServer(target: URL) {
  const port = await freePort();
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  const keep = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
    return socket;
  };
  const start = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const upstream = keep(net.connect(Number(target.port), target.hostname));
        keep(client).pipe(upstream).pipe(client);
        client.on("close", () => upstream.destroy());
        upstream.on("close", () => client.destroy());
      });
      server.listen(port, "127.0.0.1", resolve);
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      if (server) server.close(() => resolve());
      else resolve();
      server = null;
    });
  const url = new URL(target);
  url.port = String(port);
  return { url: url.toString(), start, stop };
}

describe.runIf(onPostgres)("PostgreSQL stopped while Baton runs", () => {
  it("a request meanwhile is answered 503 saying nothing was stored, a command refuses in one line; once it is back, the same server answers the next request", async () => {
    const database = await stoppableServer(new URL(process.env.DATABASE_URL!));
    await database.start();
    const door = await startHttpDoor({ DATABASE_URL: database.url });
    const create = () =>
      fetch(`${door.origin}/api/handoffs`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "While stopped", content: "first" }) });
    try {
      expect((await create()).status).toBe(201);
      await database.stop();
      const refused = await create();
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
        /^the database is not answering \(connect ECONNREFUSED 127\.0\.0\.1:\d+\); nothing of this request was stored; send the same request again in a moment$/,
      );
      const health = () => fetch(`${door.origin}/api/health`).then((response) => response.status);
      expect([await health(), await health(), await health()]).toEqual([503, 503, 503]);
      const cli = await runBaton(["token", "list"], { env: { DATABASE_URL: database.url } });
      expect(cli.code).toBe(1);
      expect(cli.stderr).toMatch(/^baton token: the database postgresql:\/\/postgres@127\.0\.0\.1:\d+\/\w+ is not answering \(connect ECONNREFUSED [^)]+\); check that the server is up and DATABASE_URL names it, then try again\n$/);
      await database.start();
      expect((await create()).status).toBe(201);
      expect(await health()).toBe(200);
      // A load balancer's checks while it was down: one line then, one when it is back, no stack.
      expect(door.stderr().match(/^baton: health check: .*$/gm)).toEqual([
        expect.stringMatching(/^baton: health check: the database does not answer \(.*ECONNREFUSED.*\); said once until it answers again$/),
        "baton: health check: the database answers again",
      ]);
      expect(door.stderr()).not.toMatch(/^\s+at /m);
      // Nor a line per check besides (the write's 503 is still said).
      expect(door.stderr()).not.toMatch(/answered 503 to GET \/api\/health/);
      expect(door.stderr()).toMatch(/^baton: answered 503 to POST \/api\/handoffs$/m);
    } finally {
      await stopHttpDoor(door.door, "SIGTERM");
      await database.stop();
    }
    const stored = await asAdmin(async (client) => Number((await client.query("SELECT count(*) AS n FROM handoffs WHERE title = 'While stopped'")).rows[0].n));
    expect(stored).toBe(2);
  }, 60_000);
});

describe.runIf(onPostgres)("an older instance running while a newer one migrates", () => {
  it("answers a thread, and appends to it, after the migration added a column to a table it reads whole", async () => {
    const door = await startHttpDoor();
    const json = { "content-type": "application/json" };
    try {
      const created = await fetch(`${door.origin}/api/handoffs`, { method: "POST", headers: json, body: JSON.stringify({ title: "Rolling upgrade", content: "first" }) });
      const { handoff } = (await created.json()) as { handoff: { id: string } };
      const readThread = () => fetch(`${door.origin}/api/handoffs/${handoff.id}`).then((response) => response.status);
      // Read at once, so that several of the older instance's pooled connections have prepared the read.
      expect(await Promise.all(Array.from({ length: 6 }, readThread))).toEqual(Array(6).fill(200));
      // What a newer Baton's migration of handoffs does while the older instance serves.
      await asAdmin((client) => client.query("ALTER TABLE handoffs ADD COLUMN newer_baton_column BOOLEAN NOT NULL DEFAULT false"));
      expect(await Promise.all(Array.from({ length: 6 }, readThread))).toEqual(Array(6).fill(200));
      const appended = await fetch(`${door.origin}/api/handoffs/${handoff.id}/entries`, { method: "POST", headers: json, body: JSON.stringify({ type: "progress", content: "after the upgrade" }) });
      expect(appended.status).toBe(201);
      const thread = (await (await fetch(`${door.origin}/api/handoffs/${handoff.id}`)).json()) as { entries: { content: string }[] };
      expect(thread.entries.map((entry) => entry.content)).toEqual(["first", "after the upgrade"]);
      expect(door.stderr()).not.toMatch(/answered 500/);
    } finally {
      await stopHttpDoor(door.door, "SIGTERM");
      await asAdmin((client) => client.query("ALTER TABLE handoffs DROP COLUMN IF EXISTS newer_baton_column"));
    }
  }, 60_000);
});
