import "server-only";
import { customAlphabet } from "nanoid";
import { database, lockRows, MAX_INT4, storedDate, writeGrouped, writeStatement, type Tx } from "../database";
import { Conflict, Invalid, NotFound } from "../errors";
import type { Redaction } from "../secrets";
import type { StoredTextRedactor } from "../secrets/stored-redactor";
import { indexEntriesWhenDueIn } from "../search/pending";
import type { GitState } from "../git/types";
import { NANOID_ALPHABET, type ClientSide, type EntryType } from "./schemas";
import type { CleanEntry, CleanHandoffTexts } from "./clean-texts";
import { APPEND_STATEMENTS, appendParameters, CURSOR_OF, ENTRY_COLUMNS, HANDOFF_COLUMNS, type AppendedRow } from "./append-statement";
import { toEntryView, toHandoffView, type EntryRow, type EntryView, type HandoffRow, type HandoffView } from "./views";

/**
 * The only SQL that writes `handoffs` and `handoff_entries`, and the rules that go with it:
 * ids, the writer's cursor, refusing a completed thread, wiping on close. Every function takes
 * the caller's transaction (`tx`, from lib/database's `write` or `read`) as its first argument,
 * so an import or a close with an archive composes them inside one transaction of its own.
 */
const newHandoffSuffix = customAlphabet(NANOID_ALPHABET, 21);

/** The highest seq a column can hold (PostgreSQL's integer); bounds past it are cut to it. */
const MAX_SEQ = MAX_INT4;

/**
 * `git`: where the writer's repository stood, when it could tell (stored as JSON; lib/git).
 * `answers`: the number of the question it answers (checked by `checkAnswers`).
 */
export type DraftEntry = { fromClient: ClientSide; type: EntryType; content: string; git?: GitState | null; answers?: number | null };

export function handoffNotFound(id: string): NotFound {
  return new NotFound(`handoff ${id} not found; check the ID (it was pasted or typed wrong, or belongs to another Baton)`);
}

/**
 * The handoff row, or a NotFound naming the ID. `lock`: the caller writes the handoff after
 * reading it, so the row stays locked to the end of its transaction (PostgreSQL; SQLite's write
 * transaction already holds the database).
 */
export async function loadHandoff(tx: Tx, id: string, { lock = false }: { lock?: boolean } = {}): Promise<HandoffRow> {
  const row = await tx.get<HandoffRow>(`SELECT ${HANDOFF_COLUMNS} FROM handoffs WHERE id = ?${lock ? lockRows(tx) : ""}`, [id]);
  if (!row) throw handoffNotFound(id);
  return row;
}

export async function handoffExists(tx: Tx, id: string): Promise<boolean> {
  return (await tx.get("SELECT 1 AS found FROM handoffs WHERE id = ?", [id])) !== undefined;
}

/** The handoff row, or undefined when it is gone: for readers that tell others what happened (webhooks). */
export async function findHandoffRowIn(tx: Tx, id: string): Promise<HandoffRow | undefined> {
  return tx.get<HandoffRow>(`SELECT ${HANDOFF_COLUMNS} FROM handoffs WHERE id = ?`, [id]);
}

/** One entry with its handoff's title and project, or undefined when it is gone (a closed thread's): what a webhook event says of it. */
export async function entryWithHandoffIn(
  tx: Tx,
  seq: number,
): Promise<
  | { seq: number; number: number; answers: number | null; type: string; from_client: string; content: string; created_at: string; handoff_id: string; title: string; project: string | null }
  | undefined
> {
  return tx.get(
    "SELECT e.seq, e.number, e.answers, e.type, e.from_client, e.content, e.created_at, h.id AS handoff_id, h.title, h.project FROM handoff_entries e JOIN handoffs h ON h.id = e.handoff_id WHERE e.seq = ?",
    [seq],
  );
}

function gitJson(state: GitState | null | undefined): string | null {
  return state ? JSON.stringify(state) : null;
}

async function insertEntry(tx: Tx, handoffId: string, number: number, entry: DraftEntry, at: string): Promise<EntryView> {
  const row = await tx.get<EntryRow>(
    `INSERT INTO handoff_entries (handoff_id, number, from_client, type, content, created_at, git) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${ENTRY_COLUMNS}`,
    [handoffId, number, entry.fromClient, entry.type, entry.content, at, gitJson(entry.git)],
  );
  return toEntryView(row!);
}

/**
 * Starts a thread with its first entries. Each side that wrote has seen what it wrote: its
 * cursor moves to its last entry (seqs are global, so that is whatever the next seq happens to be).
 */
export async function createHandoffIn(
  tx: Tx,
  draft: { texts: CleanHandoffTexts; project: string | null; at?: Date; git?: GitState | null },
): Promise<{ handoff: HandoffView; entries: EntryView[]; redactions: Redaction[] }> {
  const at = storedDate(draft.at);
  const id = `hof_${newHandoffSuffix()}`;
  await tx.run("INSERT INTO handoffs (id, title, project, created_at, updated_at, git) VALUES (?, ?, ?, ?, ?, ?)", [id, draft.texts.title, draft.project, at, at, gitJson(draft.git)]);
  const entries: EntryView[] = [];
  for (const entry of draft.texts.entries) entries.push(await insertEntry(tx, id, entries.length + 1, entry, at));
  if (entries.length > 0) await indexEntriesWhenDueIn(tx, entries.at(-1)!.seq);
  const lastBy = (side: ClientSide) => entries.findLast((entry) => entry.fromClient === side)?.seq ?? 0;
  const handoff = await tx.get<HandoffRow>(`UPDATE handoffs SET chat_last_seen = ?, code_last_seen = ?, last_number = ? WHERE id = ? RETURNING ${HANDOFF_COLUMNS}`, [
    lastBy("chat"),
    lastBy("code"),
    entries.length,
    id,
  ]);
  return { handoff: toHandoffView(handoff!), entries, redactions: draft.texts.redactions };
}

export function completedConflict(id: string): Conflict {
  return new Conflict(`handoff ${id} is completed; entries can no longer be added (start a new handoff to go on)`);
}

type Appended = { handoff: HandoffView; entry: EntryView; redactions: Redaction[] };

/**
 * Appends to an active thread; the writer has seen what it wrote, so its cursor moves to it. The
 * rule, on both engines: lock and check the thread (appends to one handoff and its close run one
 * after another, so seqs increase in commit order, numbers follow without gaps, and a closed
 * thread takes nothing), insert the entry numbered one past the thread's last, move the thread's
 * activity, its last number and the writer's cursor. PostgreSQL says it in one statement
 * (append-statement.ts); SQLite, which cannot write inside a WITH, in two, whose write
 * transaction already holds the database.
 */
export async function appendEntryIn(tx: Tx, id: string, entry: CleanEntry): Promise<Appended> {
  const row = tx.engine === "postgres" ? await tx.get<AppendedRow>(APPEND_STATEMENTS[entry.fromClient], appendParams(id, entry)) : await appendRowOnSqlite(tx, id, entry);
  return appendedFrom(id, entry, row);
}

/**
 * appendEntryIn as a transaction of its own (what a door's append is), answered once it is
 * committed. On SQLite, concurrent appends share one transaction (group commit, lib/database's
 * writeGrouped): the statements answer the row or none and only then, outside the group, does
 * a missing or completed thread become its caller's error. On PostgreSQL the statement runs on
 * its own: one round trip instead of three (BEGIN, it, COMMIT), which is most of an append's
 * time there.
 */
export async function appendEntry(id: string, entry: CleanEntry): Promise<Appended> {
  if (database().engine !== "postgres") return appendedFrom(id, entry, await writeGrouped((tx) => appendRowOnSqlite(tx, id, entry)));
  const [row] = await writeStatement<AppendedRow>(APPEND_STATEMENTS[entry.fromClient], appendParams(id, entry));
  return appendedFrom(id, entry, row);
}

const appendParams = (id: string, entry: CleanEntry) =>
  appendParameters(id, { fromClient: entry.fromClient, type: entry.type, content: entry.content, createdAt: storedDate(), git: gitJson(entry.git), answers: entry.answers ?? null });

/**
 * The entry's seq as SQLite's AUTOINCREMENT would give it: one past the highest ever used. Read
 * inside the write transaction, which holds the database, so no other writer can take it.
 */
const NEXT_SEQ = "(SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'handoff_entries'), 0), COALESCE((SELECT MAX(seq) FROM handoff_entries), 0)) + 1)";

/**
 * SQLite's two statements. The thread moves first, the writer's cursor to the seq the entry is
 * then given: the entry is never past its writer's cursor, so the unread triggers
 * (prisma/migrations/*_unread_since) write nothing for the writer's side. Inserting first made
 * them add the writer's row and the cursor's move delete it again, three of an append's fifteen
 * pages written.
 */
async function appendRowOnSqlite(tx: Tx, id: string, entry: CleanEntry): Promise<AppendedRow | undefined> {
  const cursor = CURSOR_OF[entry.fromClient];
  const createdAt = storedDate();
  const moved = await tx.get<HandoffRow & { last_number: number }>(
    `UPDATE handoffs SET updated_at = ?, ${cursor} = ${NEXT_SEQ}, last_number = last_number + 1 WHERE id = ? AND status = 'active' RETURNING ${HANDOFF_COLUMNS}, last_number`,
    [createdAt, id],
  );
  if (!moved) return (await handoffExists(tx, id)) ? { seq: null } : undefined;
  // An INSERT … VALUES answers its row (or throws).
  const added = (await tx.get<EntryRow>(
    `INSERT INTO handoff_entries (seq, handoff_id, from_client, type, content, created_at, git, answers, number) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${ENTRY_COLUMNS}`,
    [moved[cursor], id, entry.fromClient, entry.type, entry.content, createdAt, gitJson(entry.git), entry.answers ?? null, moved.last_number],
  ))!;
  await indexEntriesWhenDueIn(tx, added.seq);
  const { last_number: _number, ...handoff } = moved;
  return {
    ...handoff,
    seq: added.seq,
    from_client: added.from_client,
    type: added.type,
    content: added.content,
    entry_created_at: added.created_at,
    number: added.number,
    answers: added.answers,
  };
}

/** No row: no such thread. A row without an entry: the thread is not active. */
function appendedFrom(id: string, entry: CleanEntry, row: AppendedRow | undefined): Appended {
  if (!row) throw handoffNotFound(id);
  if (row.seq === null) throw completedConflict(id);
  const added = {
    seq: row.seq,
    handoff_id: id,
    from_client: row.from_client,
    type: row.type,
    content: row.content,
    created_at: row.entry_created_at,
    number: row.number,
    answers: row.answers,
  };
  return { handoff: toHandoffView(row), entry: toEntryView(added), redactions: entry.redactions };
}

/**
 * Refuses an `answers` that does not name a question of the thread: the entry must exist (a
 * closed thread's are wiped) and be a question. Read before the append's own transaction: entries
 * never change, and a close in between makes the append itself refuse.
 */
export async function checkAnswersIn(tx: Tx, id: string, answers: number): Promise<void> {
  const target = await tx.get<{ type: string }>("SELECT type FROM handoff_entries WHERE handoff_id = ? AND number = ?", [id, Math.min(answers, MAX_SEQ)]);
  if (!target) {
    if (!(await handoffExists(tx, id))) throw handoffNotFound(id);
    throw new Invalid(`answers=${answers}: handoff ${id} has no entry #${answers}; name the number of the question this entry answers`, {
      answers: [`has no entry #${answers} in this thread`],
    });
  }
  if (target.type !== "question") {
    throw new Invalid(`answers=${answers}: entry #${answers} is a ${target.type}, not a question; only a question can be answered`, {
      answers: [`entry #${answers} is a ${target.type}, not a question`],
    });
  }
}

/** Moves one side's cursor to the thread's highest seq; a cursor never moves backward. */
export async function markReadIn(tx: Tx, id: string, side: ClientSide): Promise<HandoffView> {
  const cursor = CURSOR_OF[side];
  const row = await tx.get<HandoffRow>(
    `UPDATE handoffs SET ${cursor} = CASE WHEN ${cursor} >= latest.seq THEN ${cursor} ELSE latest.seq END
       FROM (SELECT COALESCE(MAX(seq), 0) AS seq FROM handoff_entries WHERE handoff_id = ?) AS latest
       WHERE id = ? RETURNING ${HANDOFF_COLUMNS}`,
    [id, id],
  );
  if (!row) throw handoffNotFound(id);
  return toHandoffView(row);
}

/** Wipes a thread's entries and marks it completed; the row stays. Closing again changes nothing. */
export async function closeHandoffIn(tx: Tx, id: string): Promise<HandoffView> {
  const existing = await loadHandoff(tx, id, { lock: true });
  if (existing.status === "completed") return toHandoffView(existing);
  const at = storedDate();
  await tx.run("DELETE FROM handoff_entries WHERE handoff_id = ?", [id]);
  const row = await tx.get<HandoffRow>(`UPDATE handoffs SET status = 'completed', closed_at = ?, updated_at = ? WHERE id = ? RETURNING ${HANDOFF_COLUMNS}`, [at, at, id]);
  return toHandoffView(row!);
}

/**
 * The latest git state recorded on a thread (its newest entry that carries one, else the
 * handoff's own) and the handoff's, whose `files` an import named. Raw JSON: lib/git parses it.
 */
export async function recordedGitOf(tx: Tx, id: string): Promise<{ latest: string | null; handoff: string | null }> {
  const handoff = (await tx.get<{ git: string | null }>("SELECT git FROM handoffs WHERE id = ?", [id]))?.git ?? null;
  const entry = await tx.get<{ git: string }>("SELECT git FROM handoff_entries WHERE handoff_id = ? AND git IS NOT NULL ORDER BY seq DESC LIMIT 1", [id]);
  return { latest: entry?.git ?? handoff, handoff };
}

/** A range of seqs: after `gt`, before `lt` (each optional). */
export type SeqBounds = { gt?: number; lt?: number };

/**
 * `seq > ? AND seq <= ?` for `bounds`, as values a seq column holds: a caller may pass any
 * whole number (END_OF_THREAD is far past PostgreSQL's integer), and `seq < lt` is `seq <= lt - 1`.
 */
function seqRange(bounds: SeqBounds): [number, number] {
  return [Math.min(bounds.gt ?? 0, MAX_SEQ), Math.min((bounds.lt ?? MAX_SEQ + 1) - 1, MAX_SEQ)];
}

/** Up to `limit` entries of a thread within `bounds`, in `order`. */
export async function entriesOf(tx: Tx, id: string, bounds: SeqBounds, order: "asc" | "desc", limit: number): Promise<EntryView[]> {
  // Rows as arrays (a thread is read many entries at a time; see Tx.rows), in ENTRY_COLUMNS' order.
  const rows = await tx.rows<[number, string, string, string, string, string, number, number | null]>(
    `SELECT ${ENTRY_COLUMNS} FROM handoff_entries WHERE handoff_id = ? AND seq > ? AND seq <= ? ORDER BY seq ${order === "asc" ? "ASC" : "DESC"} LIMIT ?`,
    [id, ...seqRange(bounds), limit],
  );
  return rows.map(([seq, handoffId, fromClient, type, content, createdAt, number, answers]) =>
    toEntryView({ seq, handoff_id: handoffId, from_client: fromClient, type, content, created_at: createdAt, number, answers }),
  );
}

/** The seq of a thread's entry #`number`; Invalid when it has none (never had, or wiped on close). */
export async function seqOfNumber(tx: Tx, id: string, number: number): Promise<number> {
  const row = await tx.get<{ seq: number }>("SELECT seq FROM handoff_entries WHERE handoff_id = ? AND number = ?", [id, Math.min(number, MAX_SEQ)]);
  if (!row) throw new Invalid(`handoff ${id} has no entry #${number}`, { from_number: [`has no entry #${number}`] });
  return row.seq;
}

/*
 * A thread's entries are numbered from 1 in seq order without gaps (appends number them one past
 * the last, a close wipes them all), so how many lie in a range of seqs is told by the numbers of
 * its first and last: two seeks in the (handoff_id, seq) index, where counting the rows took time
 * in proportion to the thread (twice a read of a long one).
 */

/** How many entries a thread has, and how many of them are past `cursor`. */
export async function entryCounts(tx: Tx, id: string, cursor: number): Promise<{ count: number; newCount: number }> {
  const numbers = await tx.get<{ latest: number; seen: number }>(
    `SELECT COALESCE((SELECT number FROM handoff_entries WHERE handoff_id = ? ORDER BY seq DESC LIMIT 1), 0) AS latest,
            COALESCE((SELECT number FROM handoff_entries WHERE handoff_id = ? AND seq <= ? ORDER BY seq DESC LIMIT 1), 0) AS seen`,
    [id, id, Math.min(cursor, MAX_SEQ)],
  );
  return { count: numbers!.latest, newCount: numbers!.latest - numbers!.seen };
}

/** Count, first and last seq of a thread's entries within `bounds`. */
export async function entryRange(tx: Tx, id: string, bounds: SeqBounds): Promise<{ count: number; first: number | null; last: number | null }> {
  const within = "FROM handoff_entries WHERE handoff_id = ? AND seq > ? AND seq <= ?";
  const [after, through] = seqRange(bounds);
  // No row when the range holds no entry.
  const range = await tx.get<{ count: number; first: number; last: number }>(
    `SELECT lo.seq AS first, hi.seq AS last, hi.number - lo.number + 1 AS count
       FROM (SELECT seq, number ${within} ORDER BY seq ASC LIMIT 1) lo, (SELECT seq, number ${within} ORDER BY seq DESC LIMIT 1) hi`,
    [id, after, through, id, after, through],
  );
  return range ?? { count: 0, first: null, last: null };
}

/** Rows read at a time from the entries, so memory stays flat on a long history. */
const PAGE_ROWS = 1000;

/** For the sweep of stored secrets (lib/jobs/secrets-sweep.ts): titles and entries, rewritten where `redactor` says, in the caller's transaction. */
export async function redactStoredHandoffTextsIn(tx: Tx, redactor: StoredTextRedactor): Promise<void> {
  for (const { id, title } of await tx.all<{ id: string; title: string }>("SELECT id, title FROM handoffs")) {
    const redacted = redactor(`title of ${id}`, title);
    if (redacted !== null) await tx.run("UPDATE handoffs SET title = ? WHERE id = ?", [redacted, id]);
  }
  const rewritten = new Set<string>();
  for (let after = 0; ; ) {
    const page = await tx.rows<[number, number, string, string]>(
      "SELECT seq, number, handoff_id, content FROM handoff_entries WHERE seq > ? ORDER BY seq LIMIT ?",
      [after, PAGE_ROWS],
    );
    for (const [seq, number, handoffId, content] of page) {
      const redacted = redactor(`entry #${number} of ${handoffId}`, content);
      if (redacted === null) continue;
      await tx.run("UPDATE handoff_entries SET content = ? WHERE seq = ?", [redacted, seq]);
      rewritten.add(handoffId);
    }
    if (page.length < PAGE_ROWS) break;
    after = page[page.length - 1][0];
  }
  await noteThreadsRewrittenIn(tx, rewritten);
}

/**
 * Records that what these threads show was rewritten in place (an entry, an imported document or
 * a kept summary redacted), which no other column of their rows says: their revision moves, so a
 * remembered read of them is read again (threadStampIn), and the change feed's trigger on the row
 * tells open pages and MCP subscriptions. Their activity time stays: a redaction is not activity.
 */
export async function noteThreadsRewrittenIn(tx: Tx, ids: Iterable<string>): Promise<void> {
  for (const id of new Set(ids)) await tx.run("UPDATE handoffs SET revision = revision + 1 WHERE id = ?", [id]);
}

/**
 * The thread's row, with what changes whenever anything a read of the thread shows changes (its
 * `stamp`: the whole row), or undefined when there is no such thread. Every write of a thread's
 * entries moves the row too (an append its last number, a close its status, an in-place rewrite
 * its revision), and so does every write of the row itself (a cursor, the title). Every column,
 * so one added later is not forgotten; the row serves the read that follows (loadHandoff's).
 */
export async function threadStampIn(tx: Tx, id: string): Promise<{ stamp: string; row: HandoffRow } | undefined> {
  const row = await tx.get<HandoffRow>("SELECT * FROM handoffs WHERE id = ?", [id]);
  return row && { stamp: JSON.stringify(row), row };
}
