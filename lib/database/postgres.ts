import "server-only";
import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import type pg from "pg";
import { describeDatabase } from "../config";
import { Unavailable } from "../errors";
import { oneLine } from "../one-line";
import { wholeNumberParam } from "../validation";
import { AGAIN, unavailableWhenBusy } from "./busy";
import { checkedParams, numberedParameters } from "./params";
import { pgDriver } from "./pg-driver";
import type { Database, Params, Tx } from "./types";

/**
 * The team engine: a `pg` pool (size `BATON_DB_POOL_SIZE`, default 10). Transactions take row
 * locks where SQLite takes the database lock (the owner module says `FOR UPDATE` through
 * `lockRows`). Statements are written with `?`; they become `$1…` once per text and run as
 * named prepared statements, parsed once per connection.
 */
export const DEFAULT_POOL_SIZE = 10;
const MAX_POOL_SIZE = 1_000;

/**
 * BATON_DB_POOL_SIZE as typed, by the rule every number Baton reads follows: a whole number from 1
 * to 1,000, or unset for the default. Anything else (0, -3, "ten") used to mean the default or a
 * pool that never gives a connection (every request waited 10 s, then failed); now the database
 * cannot be used until it is set right, and `npm start` says so before serving.
 */
export function poolSize(): number {
  const setting = wholeNumberParam("BATON_DB_POOL_SIZE", 1, MAX_POOL_SIZE).safeParse(process.env.BATON_DB_POOL_SIZE);
  if (!setting.success) {
    throw new Unavailable(`BATON_DB_POOL_SIZE must be a whole number from 1 to ${MAX_POOL_SIZE.toLocaleString("en-US")} (it is ${JSON.stringify(process.env.BATON_DB_POOL_SIZE)}); fix it or leave it unset for ${DEFAULT_POOL_SIZE}`);
  }
  return setting.data ?? DEFAULT_POOL_SIZE;
}

type Prepared = { name: string; text: string };
const prepared = new Map<string, Prepared>();

/** A statement's PostgreSQL text, named after its hash so each connection parses it once. */
function toPostgres(text: string): Prepared {
  let found = prepared.get(text);
  if (found) return found;
  found = { name: `b_${createHash("sha1").update(text).digest("hex").slice(0, 20)}`, text: numberedParameters(text) };
  prepared.set(text, found);
  return found;
}

/** SQLSTATEs after which the whole transaction may run again: nothing of it was kept. */
const RETRYABLE = new Set(["40001", "40P01"]);
/** Connection-level failures: the server went away or refused (a restart, a full pool). */
const UNAVAILABLE = new Set(["57P01", "57P02", "57P03", "08000", "08003", "08006", "08001", "08004", "53300"]);
const NETWORK = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ENOTFOUND", "EHOSTUNREACH"]);

export function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && (UNAVAILABLE.has(code) || NETWORK.has(code))) return true;
  const message = error instanceof Error ? error.message : "";
  return /Connection terminated|connection timeout|Client has encountered a connection error|not queryable|Query read timeout/i.test(message);
}

/**
 * A named prepared statement whose result's columns changed under it: another process altered a
 * table it reads whole (a newer Baton's migration adding a column while this older instance
 * serves, as in a rolling upgrade), and PostgreSQL refuses the statement on that connection from
 * then on (0A000 from the plan cache's revalidation; the routine, unlike the message, is not
 * translated). Every read of a thread answered 500 until the instance restarted.
 */
const isStalePreparedStatement = (error: unknown) => {
  const { code, routine } = (error ?? {}) as { code?: unknown; routine?: unknown };
  return code === "0A000" && routine === "RevalidateCachedQuery";
};

/** pg's error for a statement unanswered past QUERY_TIMEOUT_MS. */
const isQueryTimeout = (error: unknown) => error instanceof Error && error.message === "Query read timeout";

/**
 * How long opening a connection of its own may take (withConnection): a server that takes
 * the connection and never answers is given up on after it. Establishing one, authentication
 * included, takes milliseconds; waiting for a lock is a statement's own timeout, not this.
 */
export const CONNECT_TIMEOUT_MS = 5_000;

/**
 * `url` with session `settings` (`-c name=value …`) added to its own `options` parameter. pg lets
 * a URL's parameters override the client's config, so a DATABASE_URL with `?options=-c
 * search_path=…` dropped Baton's settings: the session ran in the server's time zone (the change
 * feed's times were stored hours off) and without a statement timeout. Baton's come last and win.
 * A URL that does not parse is left as it is, for pg to report.
 */
function withSessionSettings(url: string, settings: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  const own = parsed.searchParams.get("options");
  parsed.searchParams.set("options", own ? `${own} ${settings}` : settings);
  return parsed.toString();
}

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

const unavailable = (error: unknown) => new Unavailable(`the database is not answering (${reasonOf(error)}); try again in a moment`);

/** As unavailable, before the request's transaction began: then nothing of it can have been stored, and the refusal says so. */
const unavailableBeforeStart = (error: unknown) => new Unavailable(`the database is not answering (${reasonOf(error)}); ${AGAIN}`);

/**
 * SQLSTATE too_many_connections: the server's max_connections (less its superuser reserve) are
 * all taken, or the role's CONNECTION LIMIT. The server is up and answered: "not answering, check
 * that the server is up" sent a team to the wrong place when its instances' pools together asked
 * for more connections than PostgreSQL allows.
 */
const TOO_MANY_CONNECTIONS = "53300";

const noConnectionLeft = (error: unknown) =>
  new Unavailable(
    `the database has no connection left for Baton (${reasonOf(error)}): PostgreSQL's max_connections, or the role's connection limit, is taken by its other clients and every Baton process (each instance keeps up to BATON_DB_POOL_SIZE); nothing of this request was stored; try again in a moment, and if it lasts raise max_connections or lower BATON_DB_POOL_SIZE`,
  );

/**
 * A connection that could not be set up as one line that says what to do (Unavailable), where
 * pg's own reads like a bug ("unexpected error" in the CLI): no password for the server's SCRAM
 * ("SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string"; a DATABASE_URL without its
 * password is what `baton setup claude-code` writes, so it comes from PGPASSWORD or ~/.pgpass,
 * which pg reads), TLS asked of a server without it, or no connection left (TOO_MANY_CONNECTIONS).
 * Any other error is returned as it is.
 */
function connectionSetupExplained(error: unknown): unknown {
  if ((error as { code?: unknown } | null)?.code === TOO_MANY_CONNECTIONS) return noConnectionLeft(error);
  const message = error instanceof Error ? error.message : "";
  if (/client password must be a string/.test(message)) {
    return new Unavailable("the database asks for a password and none was given: set PGPASSWORD or add the password to ~/.pgpass (Baton leaves DATABASE_URL's password out of the files it writes)");
  }
  if (/server does not support SSL connections/.test(message)) {
    return new Unavailable("the database does not accept TLS connections, which DATABASE_URL asks for (sslmode): enable TLS on the server, or take sslmode out of the URL on a network you trust");
  }
  return error;
}

/**
 * A database URL pg cannot read (a port past 65535 or no number, an IPv6 address without its
 * closing bracket) refused in one line that names it and what to fix: pg's own TypeError read
 * "Invalid URL" alone (`baton token: Invalid URL (ERR_INVALID_URL)`), naming neither the URL nor
 * the setting. pg reads it when a client is made, so one is made here, never connected.
 */
function refuseUnreadableUrl(Client: typeof pg.Client, url: string): void {
  try {
    new Client({ connectionString: url });
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code !== "ERR_INVALID_URL") throw error;
    throw new Unavailable(
      `the database URL ${oneLine(describeDatabase(url))} cannot be read as a URL (${reasonOf(error)}): a port is a whole number up to 65535, an IPv6 address goes between [ ], and @ : / ? # in a user name or password are written %40 %3A %2F %3F %23; correct it where it is set (DATABASE_URL, or copy-data's --to)`,
    );
  }
}

/** pg-pool's error when a caller waited connectionTimeoutMillis for one of the pool's connections to come free. */
const isPoolWaitTimeout = (error: unknown) => error instanceof Error && error.message === "timeout exceeded when trying to connect";

/**
 * Runs `work` on a connection of its own, outside the pool (migrations, VACUUM FULL, copy-data's
 * target), and ends it. A server that ends the connection between two statements fails the next
 * one; without a listener its 'error' event would end the process.
 */
export async function withConnection<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const { Client } = await pgDriver();
  refuseUnreadableUrl(Client, url);
  const client = new Client({ connectionString: withSessionSettings(url, "-c TimeZone=UTC"), connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  client.on("error", () => undefined);
  await client.connect().catch(async (error: unknown) => {
    // A connection refused by the client itself (no password for the server's SCRAM) stays open
    // until the server's authentication_timeout (60 s) unless ended, and holds the process.
    await client.end().catch(() => undefined);
    throw connectionSetupExplained(error);
  });
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** withConnection's `work` in one transaction: committed when it returns, rolled back when it throws. */
export function withTransaction<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  return withConnection(url, async (client) => {
    await client.query("BEGIN");
    try {
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    }
  });
}

/** Pauses between tries while the server is away: a restart takes a few seconds. */
const RECONNECT_PAUSES_MS = [50, 100, 200, 400, 800, 1600, 2000, 2000];
/**
 * How long a caller keeps trying to connect, its tries included: the pauses above when the
 * server refuses at once. One that takes connections and never answers costs POOL_WAIT_MS a try;
 * nine tries held a request 97 s.
 */
const RECONNECT_WINDOW_MS = 10_000;

/** How long a caller waits for a connection: to open one, or for one of a full pool's to come free. */
const POOL_WAIT_MS = 10_000;
/**
 * How long the server runs one statement of a pooled connection, waiting for locks included,
 * before it cancels it (57014, refused as busy: lib/database/busy.ts): Baton's statements take milliseconds, waiting behind another
 * writer's row lock about as long. The server cancelling first keeps a refused write unstored: a
 * lone statement the client stopped waiting for would still commit once it got its lock (an
 * append answered 503, then stored, then sent again).
 */
const STATEMENT_TIMEOUT_MS = 25_000;
/**
 * How long a statement may go unanswered before the client gives up on the connection. A server
 * that stops answering on connections already open (frozen, or the network between gone) held
 * each request until it came back, however long; past this the connection is dropped and the
 * request answered 503.
 */
const QUERY_TIMEOUT_MS = STATEMENT_TIMEOUT_MS + 5_000;

export function openPostgres(url: string): Database {
  const max = poolSize();
  const opening = pgDriver().then(({ Client, Pool }) => {
    refuseUnreadableUrl(Client, url);
    const pool = new Pool({
      connectionString: withSessionSettings(url, `-c TimeZone=UTC -c statement_timeout=${STATEMENT_TIMEOUT_MS}`),
      max,
      connectionTimeoutMillis: POOL_WAIT_MS,
      query_timeout: QUERY_TIMEOUT_MS,
    });
    // An idle client whose server went away reports here; the pool drops it and opens another.
    pool.on("error", () => undefined);
    return pool;
  });
  // A driver that cannot load fails each use (awaiting `opening`), not the process at once.
  opening.catch(() => undefined);

  const txOf = (client: pg.PoolClient): Tx => {
    const query = async (text: string, params: Params, rowMode?: "array") => {
      const { name, text: converted } = toPostgres(text);
      return client.query({ name, text: converted, values: checkedParams(params) as unknown[], ...(rowMode ? { rowMode } : {}) });
    };
    return {
      engine: "postgres",
      get: async <Row>(text: string, params: Params = []) => (await query(text, params)).rows[0] as Row | undefined,
      all: async <Row>(text: string, params: Params = []) => (await query(text, params)).rows as Row[],
      rows: async <Tuple>(text: string, params: Params = []) => (await query(text, params, "array")).rows as Tuple[],
      run: async (text: string, params: Params = []) => (await query(text, params)).rowCount ?? 0,
    };
  };

  const inside = new AsyncLocalStorage<Tx>();
  /** The transactions begun as writes (Database.insideWrite). */
  const writes = new WeakSet<Tx>();
  const BEGIN_WRITE = "BEGIN";

  /** A connection, waiting through a server restart; Unavailable when it stays away. */
  const connect = async (): Promise<pg.PoolClient> => {
    const giveUpAt = Date.now() + RECONNECT_WINDOW_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        return await (await opening).connect();
      } catch (error) {
        // Every connection stayed in use (requests waiting on a thread's row lock): a 503, not a crash; trying again would queue longer.
        if (isPoolWaitTimeout(error)) {
          throw new Unavailable(`the database is busy: all ${max} of this process's connections (BATON_DB_POOL_SIZE) stayed in use for ${POOL_WAIT_MS / 1000} s; ${AGAIN}`);
        }
        const pause = RECONNECT_PAUSES_MS[attempt];
        if (!isConnectionFailure(error) || pause === undefined || Date.now() + pause >= giveUpAt) {
          const explained = connectionSetupExplained(error);
          throw explained === error && isConnectionFailure(error) ? unavailableBeforeStart(error) : explained;
        }
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  };

  /**
   * Runs `work` on a pooled connection, inside `begin` … COMMIT, or with `begin` null as one
   * statement in its own transaction (one round trip). Tried again when it kept nothing: a
   * connection lost before BEGIN went through, a deadlock's or serialization's victim, or a
   * statement prepared before a table changed (isStalePreparedStatement: that connection is
   * dropped with what it prepared, and the next parses afresh; at most one try per pooled
   * connection). A connection lost after BEGIN may have committed, so that answers Unavailable.
   */
  const transaction = async <T>(begin: string | null, work: (tx: Tx) => Promise<T>): Promise<T> => {
    const joined = inside.getStore();
    if (joined) return work(joined);
    let staleTries = 0;
    for (let attempt = 0; ; attempt++) {
      const client = await connect();
      let broken = false;
      let stale = false;
      let started = false;
      // The pool listens for errors only on idle clients. A server that ends this connection
      // between two statements (a restart, pg_terminate_backend) reports it as an 'error' event,
      // which with no listener would end the process; the next statement then fails as lost.
      let lost = false;
      const onLost = () => (lost = true);
      client.on("error", onLost);
      try {
        if (begin) await client.query(begin);
        started = true;
        const tx = txOf(client);
        if (begin === BEGIN_WRITE) writes.add(tx);
        // A lone statement has nothing nested to join it, so it skips the context (a hot append's cost).
        const result = begin ? await inside.run(tx, () => work(tx)) : await work(tx);
        if (begin) await client.query("COMMIT");
        return result;
      } catch (error) {
        broken = isConnectionFailure(error);
        if (!broken && begin) await client.query("ROLLBACK").catch(() => (broken = true));
        stale = isStalePreparedStatement(error);
        if (stale && staleTries++ < max) continue;
        const code = (error as { code?: string }).code;
        // A BEGIN unanswered for QUERY_TIMEOUT_MS is not tried again: the server is there and silent.
        if ((broken && !started && !isQueryTimeout(error) && attempt < RECONNECT_PAUSES_MS.length) || (code && RETRYABLE.has(code) && attempt < 5)) continue;
        if (broken) throw unavailable(error);
        throw unavailableWhenBusy(error, "postgres", STATEMENT_TIMEOUT_MS);
      } finally {
        client.off("error", onLost);
        client.release(broken || lost || stale);
      }
    }
  };

  return {
    engine: "postgres",
    write: (work) => transaction(BEGIN_WRITE, work),
    writeGrouped: (work) => transaction(BEGIN_WRITE, work),
    writeStatement: <Row>(text: string, params: Params = []) => transaction(null, (tx) => tx.all<Row>(text, params)),
    read: (work) => transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", work),
    // No cheap signal that nothing changed (a query per read would cost what it saves).
    changeStamp: async () => null,
    insideWrite: () => {
      const joined = inside.getStore();
      return joined !== undefined && writes.has(joined);
    },
    ping: async () => {
      await (await opening).query("SELECT 1");
    },
    close: async () => (await opening).end(),
  };
}
