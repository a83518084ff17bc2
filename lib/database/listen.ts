import "server-only";
import net from "node:net";
import type pg from "pg";
import { pgDriver } from "./pg-driver";

/** Pauses between reconnections of a dropped listening connection, the last one repeated. */
const RECONNECT_PAUSES_MS = [100, 200, 400, 800, 1600, 3200, 5000];
/**
 * How often a listening connection is asked to answer, and how long it has to: one a NAT or
 * firewall forgot while idle (nothing closed, no error, no notification ever again) looked alive
 * forever, and every wake-up waited for the change feed's slow poll. One that does not answer is
 * dropped and replaced like one that closed.
 */
const CHECK_EVERY_MS = 5_000;
const CHECK_TIMEOUT_MS = 2_000;

export type Listening = { stop: () => void };

/**
 * Listens on a PostgreSQL NOTIFY `channel` on a connection of its own, outside the pool (a pooled
 * connection cannot hold LISTEN), with an unreferenced socket so listening never keeps a process
 * alive by itself. `onNotify` runs for every notification, and once after each (re)connection: what
 * was sent while no one listened. A dropped connection is reconnected after a pause, said once
 * on stderr as `<label> lost its PostgreSQL connection` and again when it listens again.
 * Resolves once the first connection attempt ended (connected, or dropped and retrying).
 */
export async function listen(options: { url: string; channel: string; label: string; onNotify: () => void }): Promise<Listening> {
  if (!/^[a-z_]+$/.test(options.channel)) throw new Error(`listen: "${options.channel}" is not a channel name`);
  let stopped = false;
  let client: pg.Client | null = null;
  let failures = 0;
  let reconnect: ReturnType<typeof setTimeout> | null = null;

  const connect = async () => {
    const { Client } = await pgDriver();
    const connection = new Client({
      connectionString: options.url,
      connectionTimeoutMillis: 10_000,
      query_timeout: CHECK_TIMEOUT_MS,
      stream: () => new net.Socket().unref(),
    });
    let dropped = false;
    // From the moment it listens (client is this connection) until it is dropped.
    const check = setInterval(() => {
      if (client === connection) connection.query("SELECT 1").catch(drop);
    }, CHECK_EVERY_MS);
    check.unref?.();
    const drop = (error?: unknown) => {
      if (dropped) return;
      dropped = true;
      clearInterval(check);
      if (client === connection) client = null;
      void connection.end().catch(() => undefined);
      if (stopped) return;
      if (failures++ === 0) console.error(`baton: ${options.label} lost its PostgreSQL connection (${error instanceof Error ? error.message : "closed"}); reconnecting`);
      const pause = RECONNECT_PAUSES_MS[Math.min(failures - 1, RECONNECT_PAUSES_MS.length - 1)];
      reconnect = setTimeout(() => ((reconnect = null), void connect()), pause);
      reconnect.unref?.();
    };
    connection.on("notification", () => options.onNotify());
    connection.on("error", drop);
    connection.on("end", () => drop());
    try {
      await connection.connect();
      await connection.query(`LISTEN ${options.channel}`);
    } catch (error) {
      drop(error);
      return;
    }
    if (stopped) return void connection.end().catch(() => undefined);
    client = connection;
    if (failures > 0) console.error(`baton: ${options.label} is listening again`);
    failures = 0;
    options.onNotify();
  };

  await connect();
  return {
    stop: () => {
      stopped = true;
      if (reconnect) clearTimeout(reconnect);
      void client?.end().catch(() => undefined);
      client = null;
    },
  };
}
