/**
 * The process's Prisma client (the schema and migration authority; lib/agents still queries
 * through it) and its transaction helpers. The only module that constructs a Prisma client or
 * imports values from lib/generated/prisma (ESLint enforces it); hot paths use lib/sqlite.ts.
 */
import "server-only";
import fs from "node:fs";
import path from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { Prisma, PrismaClient } from "./generated/prisma/client";
import { databaseFile, databaseUrl } from "./config";

/** How long a connection waits for another process's write lock before giving up. */
export const BUSY_TIMEOUT_MS = 10_000;

type Db = PrismaClient;
export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

// One client per process, kept on globalThis so Next's dev reloads do not open a new one each time.
const globalForDb = globalThis as unknown as { batonDb?: Promise<Db>; batonDbUrl?: string };

async function connect(url: string): Promise<Db> {
  fs.mkdirSync(path.dirname(databaseFile(url)), { recursive: true });
  const client = new PrismaClient({
    adapter: new PrismaBetterSQLite3({ url, timeout: BUSY_TIMEOUT_MS }),
  });
  // The dashboard, several MCP processes and the CLI write this file at once: WAL lets readers
  // go on during a write, busy_timeout makes writers queue instead of failing with SQLITE_BUSY.
  await client.$queryRawUnsafe("PRAGMA journal_mode = WAL");
  await client.$queryRawUnsafe(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  await client.$queryRawUnsafe("PRAGMA foreign_keys = ON");
  await client.$queryRawUnsafe("PRAGMA synchronous = NORMAL");
  return client;
}

/** The process's Prisma client. Nothing else constructs one. */
export function db(): Promise<Db> {
  const url = databaseUrl();
  if (!globalForDb.batonDb || globalForDb.batonDbUrl !== url) {
    globalForDb.batonDb = connect(url);
    globalForDb.batonDbUrl = url;
  }
  return globalForDb.batonDb;
}

/** Closes the process's client (tests and short-lived CLI commands). */
export async function disconnectDb(): Promise<void> {
  const pending = globalForDb.batonDb;
  globalForDb.batonDb = undefined;
  globalForDb.batonDbUrl = undefined;
  if (pending) await (await pending).$disconnect();
}

/**
 * Runs `work` in one write transaction. The adapter opens transactions with a deferred BEGIN;
 * a deferred transaction that reads before it writes fails at once with SQLITE_BUSY when another
 * process committed in between, without waiting for busy_timeout. Taking the write lock first
 * (an UPDATE that matches no row still takes it) makes every write transaction behave like
 * BEGIN IMMEDIATE: it waits its turn, then sees the latest data.
 */
export async function writeTransaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
  const client = await db();
  return client.$transaction(
    async (tx) => {
      await tx.$executeRawUnsafe("UPDATE handoffs SET id = id WHERE 0");
      return work(tx);
    },
    // Requests of one process queue on the adapter's single connection; give them room.
    { maxWait: BUSY_TIMEOUT_MS * 3, timeout: BUSY_TIMEOUT_MS * 3 },
  );
}

/** Runs `work` in one read transaction: a consistent snapshot across its queries. */
export async function readTransaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
  const client = await db();
  return client.$transaction(work, { maxWait: BUSY_TIMEOUT_MS * 3, timeout: BUSY_TIMEOUT_MS * 3 });
}

/** True for the database's unique-constraint failure (Prisma P2002). */
export function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
}
