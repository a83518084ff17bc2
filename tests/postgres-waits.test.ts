import net from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveApi, type ApiServer } from "./support/api-server";

/**
 * How long a request waits on PostgreSQL, through the served API on a real socket: a pool whose
 * connections are all taken, and a server that takes connections and never answers. Either is a
 * 503 naming what happened within seconds, never a 500 or a request held for minutes.
 */
process.env.BATON_DB_POOL_SIZE = "2";

let api: ApiServer;
beforeAll(async () => {
  api = await serveApi();
});
afterAll(() => api?.close());

const post = (path: string, body: unknown) => api.fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

/**
 * A TCP relay to the run's PostgreSQL that can freeze: it then passes nothing either way on the
 * connections it holds, and answers no new one (a server that stopped, or the network between).
 */
async function freezableRelay(target: URL) {
  let frozen = false;
  const sockets = new Set<net.Socket>();
  const keep = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
    return socket;
  };
  const server = net.createServer((client) => {
    keep(client);
    if (frozen) return;
    const upstream = keep(net.connect(Number(target.port), target.hostname));
    client.on("data", (chunk) => void (frozen || upstream.write(chunk)));
    upstream.on("data", (chunk) => void (frozen || client.write(chunk)));
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = new URL(target);
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    freeze: () => (frozen = true),
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

/** A thread made over the API, its first entry "first"; its ID. */
async function threadTitled(title: string): Promise<string> {
  const created = await post("/api/handoffs", { title, content: "first" });
  expect(created.status).toBe(201);
  return ((await created.json()) as { handoff: { id: string } }).handoff.id;
}

/** Another session holding the thread's row (an open transaction's FOR UPDATE): COMMIT lets it go, end() closes the session. */
async function holdingThread(id: string): Promise<pg.Client> {
  const holder = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await holder.connect();
  try {
    await holder.query("BEGIN");
    await holder.query("SELECT 1 FROM handoffs WHERE id = $1 FOR UPDATE", [id]);
  } catch (error) {
    await holder.end();
    throw error;
  }
  return holder;
}

describe("waiting on PostgreSQL", () => {
  it("a pool with every connection taken answers 503 'busy' to the request that waited too long, and stores nothing of it", async () => {
    const id = await threadTitled("Pool waits");
    // Another session holds the thread's row: the two appends that get the pool's two
    // connections wait on it, holding them; a third waits for a connection.
    const holder = await holdingThread(id);
    try {
      const holding = [post(`/api/handoffs/${id}/entries`, { type: "progress", content: "one" }), post(`/api/handoffs/${id}/entries`, { type: "progress", content: "two" })];
      await new Promise((resolve) => setTimeout(resolve, 300));
      const waited = await post(`/api/handoffs/${id}/entries`, { type: "progress", content: "three" });
      expect(waited.status).toBe(503);
      const { error } = (await waited.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe("UNAVAILABLE");
      expect(error.message).toMatch(/^the database is busy: all 2 of this process's connections \(BATON_DB_POOL_SIZE\) stayed in use for 10 s; nothing of this request was stored; send the same request again in a moment$/);
      await holder.query("COMMIT");
      expect((await Promise.all(holding)).map((response) => response.status)).toEqual([201, 201]);
    } finally {
      await holder.end();
    }
    const thread = (await (await api.fetch(`/api/handoffs/${id}`)).json()) as { entries: { content: string }[] };
    expect(thread.entries.map((entry) => entry.content).sort()).toEqual(["first", "one", "two"]);
  }, 30_000);

  it("an append that waits 25 s for a thread another session holds is cancelled by the server: 503, and not stored once the lock is let go", async () => {
    const id = await threadTitled("Lock waits");
    const holder = await holdingThread(id);
    try {
      const started = performance.now();
      const waited = await post(`/api/handoffs/${id}/entries`, { type: "progress", content: "late" });
      expect(waited.status).toBe(503);
      expect(((await waited.json()) as { error: { message: string } }).error.message).toMatch(/^the database is busy: it did not finish within 25 s .*nothing of this request was stored/);
      expect((performance.now() - started) / 1000).toBeLessThan(29);
      await holder.query("COMMIT");
    } finally {
      await holder.end();
    }
    // Given up on by the client alone, the statement took the lock once it was let go, and committed.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const thread = (await (await api.fetch(`/api/handoffs/${id}`)).json()) as { entries: { content: string }[] };
    expect(thread.entries.map((entry) => entry.content)).toEqual(["first"]);
  }, 60_000);

  it("a table another session holds locked past lock_timeout: a write and a read-only transaction are answered 503 'busy' with Retry-After, and nothing is stored", async () => {
    const id = await threadTitled("Lock timeout");
    const real = process.env.DATABASE_URL!;
    const holder = new pg.Client({ connectionString: real });
    await holder.connect();
    // lock_timeout is the server's setting (a role's, or DATABASE_URL's options) that Baton leaves as it is.
    const shortLockWait = new URL(real);
    shortLockWait.searchParams.set("options", "-c lock_timeout=300");
    process.env.DATABASE_URL = shortLockWait.toString();
    try {
      await holder.query("BEGIN");
      await holder.query("LOCK TABLE handoffs IN ACCESS EXCLUSIVE MODE");
      const busy = /^the database is busy: another transaction held a lock this needed past the server's lock_timeout; nothing of this request was stored; send the same request again in a moment$/;
      for (const response of [await post(`/api/handoffs/${id}/entries`, { type: "progress", content: "refused" }), await api.fetch(`/api/handoffs/${id}`)]) {
        expect(response.status).toBe(503);
        expect(response.headers.get("retry-after")).toBe("2");
        const { error } = (await response.json()) as { error: { code: string; message: string } };
        expect(error).toMatchObject({ code: "UNAVAILABLE" });
        expect(error.message).toMatch(busy);
      }
      await holder.query("ROLLBACK");
    } finally {
      await holder.end();
      process.env.DATABASE_URL = real;
    }
    const thread = (await (await api.fetch(`/api/handoffs/${id}`)).json()) as { entries: { content: string }[] };
    expect(thread.entries.map((entry) => entry.content)).toEqual(["first"]);
  }, 30_000);

  it("a server that stops answering on connections already open: 503 after 30 s, not a request held until it answers again", async () => {
    const relay = await freezableRelay(new URL(process.env.DATABASE_URL!));
    const real = process.env.DATABASE_URL;
    process.env.DATABASE_URL = relay.url;
    try {
      expect((await api.fetch("/api/handoffs")).status).toBe(200);
      relay.freeze();
      const started = performance.now();
      // Without the statement timeout this waited for as long as the relay stayed frozen.
      const response = await api.fetch("/api/handoffs", { signal: AbortSignal.timeout(60_000) });
      const seconds = (performance.now() - started) / 1000;
      expect(response.status).toBe(503);
      expect(await response.text()).toMatch(/the database is not answering \(Query read timeout\)/);
      expect(seconds).toBeLessThan(40);
    } finally {
      process.env.DATABASE_URL = real;
      relay.close();
    }
  }, 120_000);

  it("a server that takes connections and never answers: 503 within one connect timeout, not after nine", async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const real = process.env.DATABASE_URL;
    process.env.DATABASE_URL = `postgresql://baton:hunter2-secret@127.0.0.1:${(silent.address() as net.AddressInfo).port}/baton`;
    try {
      const started = performance.now();
      const response = await api.fetch("/api/handoffs");
      const seconds = (performance.now() - started) / 1000;
      expect(response.status).toBe(503);
      const text = await response.text();
      expect(text).toMatch(/the database is not answering \(Connection terminated due to connection timeout\); nothing of this request was stored; send the same request again in a moment/);
      expect(text).not.toContain("hunter2");
      expect(seconds).toBeLessThan(15);
    } finally {
      process.env.DATABASE_URL = real;
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  }, 150_000);
});
