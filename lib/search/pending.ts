import "server-only";
import { database, read, write, type Tx } from "../database";

/**
 * SQLite's entry index, written in batches (prisma/migrations/*_search_index_in_batches). An entry
 * is in the index exactly when it has an owner row; the entries after the highest owned seq are
 * pending (seqs only grow, and the index is written in seq order). PostgreSQL indexes each entry
 * as it is written (a GIN index on its tsvector, its owner row by trigger): nothing is pending there.
 */

/** Pending entries an append lets wait before it indexes them all: one segment for them all. */
export const INDEX_BATCH = 32;

const INDEXED_THROUGH = `(SELECT COALESCE(MAX("seq"), 0) FROM "entry_search_owners")`;
const PENDING = `FROM "handoff_entries" e JOIN "handoff_search_texts" t ON t."handoff_id" = e."handoff_id" WHERE e."seq" > ${INDEXED_THROUGH}`;

/**
 * Indexes every pending entry (of a thread that has a search text, as the trigger before it did),
 * in the caller's write transaction. Terms first, owners after: both read the same pending range.
 * Plain SQL, so the bench's fixtures, which write entries through SQL, index them the same way.
 */
export const INDEX_PENDING_ENTRIES = [
  `INSERT INTO "entry_search" ("rowid", "content") SELECT e."seq", e."content" ${PENDING}`,
  `INSERT INTO "entry_search_owners" ("seq", "text_id") SELECT e."seq", t."id" ${PENDING}`,
] as const;

/**
 * Per connection, the highest owned seq it last saw, so an append reads the table only when a batch
 * may be due. A hint: after a group commit that rolled back it can run ahead of the table, and the
 * batch then comes up to INDEX_BATCH appends later (a search still indexes what waits first).
 */
const seenThrough = new WeakMap<Tx, number>();

async function indexPendingIn(tx: Tx): Promise<void> {
  for (const statement of INDEX_PENDING_ENTRIES) await tx.run(statement);
}

/**
 * After an append of `seq`, in its transaction: indexes the pending entries once INDEX_BATCH of
 * them wait. The one append that does pays for the batch; the others write no index page.
 */
export async function indexEntriesWhenDueIn(tx: Tx, seq: number): Promise<void> {
  if (tx.engine === "postgres" || seq - (seenThrough.get(tx) ?? 0) < INDEX_BATCH) return;
  const through = (await tx.get<{ through: number }>(`SELECT ${INDEXED_THROUGH} AS through`))!.through;
  const due = seq - through >= INDEX_BATCH;
  if (due) await indexPendingIn(tx);
  seenThrough.set(tx, due ? seq : through);
}

/**
 * Before a search reads the entry index: indexes what is pending, so a search finds every entry
 * acknowledged before it, whichever process wrote it. A read when nothing is pending.
 */
export async function catchUpEntryIndex(): Promise<void> {
  if (database().engine === "postgres") return;
  const pending = await read((tx) => tx.get<{ pending: number }>(`SELECT EXISTS (SELECT 1 ${PENDING}) AS pending`));
  if (pending!.pending) await write(indexPendingIn);
}
