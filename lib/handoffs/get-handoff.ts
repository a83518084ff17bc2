import "server-only";
import { LRUCache } from "lru-cache";
import { z } from "zod";
import { changeStamp, insideWrite, MAX_INT4, read, type Tx } from "../database";
import { deepFreeze } from "../deep-freeze";
import { compareWithRepository, reportOnThisMachine } from "../git/compare";
import { jsonTextBytes } from "../json-bytes";
import { parseGitState, type GitReport, type GitState, type Staleness } from "../git/types";
import { parseInput, wholeNumberParam, type DoorInput } from "../validation";
import { END_OF_THREAD, MAX_THREAD_LIMIT, THREAD_ANSWER_BUDGET_BYTES } from "./limits";
import { entriesOf, entryCounts, entryRange, handoffExists, handoffNotFound, loadHandoff, recordedGitOf, seqOfNumber, threadStampIn, type SeqBounds } from "./store";
import { handoffIdSchema } from "./schemas";
import { cursorOf, toHandoffView, type EntryView, type HandoffRow, type HandoffView } from "./views";
import { asClientSchema, namedFolderSchema } from "../caller";

export const getHandoffInput = z
  .object({
    id: handoffIdSchema,
    asClient: asClientSchema,
    afterSeq: wholeNumberParam("after_seq", 0, END_OF_THREAD),
    beforeSeq: wholeNumberParam("before_seq", 0, END_OF_THREAD),
    /** From the entry with this number on, oldest first (as `after_seq` its seq minus one): where a link to #N opens the thread. */
    fromNumber: wholeNumberParam("from_number", 1, MAX_INT4),
    limit: wholeNumberParam("limit", 1, MAX_THREAD_LIMIT),
    /** A smaller byte budget, for a door that carries each entry twice (the thread page's HTML). */
    maxBytes: wholeNumberParam("maxBytes", 1, THREAD_ANSWER_BUDGET_BYTES),
    /** The reader's working folder: the thread is compared with the repository there (lib/git). */
    repoPath: namedFolderSchema.optional(),
  })
  .refine((input) => input.afterSeq === undefined || input.beforeSeq === undefined || input.afterSeq < input.beforeSeq, {
    error: "before_seq must be above after_seq (together they ask for the entries between them)",
    path: ["beforeSeq"],
  })
  .refine((input) => input.fromNumber === undefined || input.afterSeq === undefined, {
    error: "from_number and after_seq both say where to start; pass one",
    path: ["fromNumber"],
  });

export type GetHandoffOptions = DoorInput<typeof getHandoffInput>;

/** Entries of the thread an answer left out, as one range: by number (what people see) and by seq (what the paging parameters take). */
export type OmittedRange = { firstNumber: number; lastNumber: number; firstSeq: number; lastSeq: number; count: number };

export type HandoffThread = {
  handoff: HandoffView;
  /** The entries this answer carries, oldest first: one contiguous run of the thread. */
  entries: EntryView[];
  /** Those of `entries` past the reading side's cursor. */
  newEntries: EntryView[];
  /** Every entry past the reading side's cursor, carried or not. */
  newCount: number;
  /** Every entry of the thread. */
  entryCount: number;
  /** Entries that were asked for but left out, for the byte budget or `limit`. */
  truncated: boolean;
  omitted: { earlier: OmittedRange | null; later: OmittedRange | null };
  /** How to fetch what was left out, in the parameter names of REST and MCP; null when nothing was. */
  hint: string | null;
  /** How the reader's repository (`repoPath`) moved on since the thread's latest recorded git state; null without git or when current. */
  staleness: Staleness | null;
};

/**
 * Bytes of an entry's JSON besides its content, at their largest: the other fields (the longest
 * type, a 16-digit seq), snake_case keys (one byte more each) and a margin.
 */
const ENTRY_FRAME_BYTES =
  Buffer.byteLength(
    JSON.stringify({ seq: Number.MAX_SAFE_INTEGER, handoffId: `hof_${"x".repeat(21)}`, fromClient: "chat", type: "question", content: "", createdAt: new Date(0).toISOString() }),
    "utf8",
  ) + 32;

/** Bytes an entry adds to an answer; a new one appears twice (`entries` and `new_entries`). */
function costOf(entry: EntryView, cursor: number): number {
  const once = jsonTextBytes(entry.content) + ENTRY_FRAME_BYTES;
  return entry.seq > cursor ? 2 * once : once;
}

/** What is left of an answer's budget. The first entry always goes in, so paging always moves on. */
class Room {
  taken = 0;
  constructor(
    public bytes: number,
    public count: number,
  ) {}
  take(cost: number): boolean {
    if (this.count === 0 || (this.taken > 0 && cost > this.bytes)) return false;
    this.bytes -= cost;
    this.count -= 1;
    this.taken += 1;
    return true;
  }
}

/**
 * Entries within `bounds` in `order`, as many as `room` holds, stopping at the first that does
 * not fit (what is taken stays one contiguous run). `full` is true when it stopped for room.
 * Rows are read in growing batches: a few large entries never pull in thousands.
 */
async function walk(tx: Tx, handoffId: string, bounds: SeqBounds, order: "asc" | "desc", room: Room, cursor: number) {
  const entries: EntryView[] = [];
  let edge = order === "asc" ? bounds.gt : bounds.lt;
  // Most threads are read in the first batch; a long one grows it so a few large entries never pull in thousands.
  for (let batch = 128; ; batch = Math.min(batch * 2, 512)) {
    const want = Math.min(batch, room.count);
    if (want === 0) return { entries, full: true };
    const rows = await entriesOf(tx, handoffId, order === "asc" ? { gt: edge, lt: bounds.lt } : { gt: bounds.gt, lt: edge }, order, want);
    for (const entry of rows) {
      if (!room.take(costOf(entry, cursor))) return { entries, full: true };
      entries.push(entry);
    }
    if (rows.length < want) return { entries, full: false };
    edge = rows[rows.length - 1].seq;
  }
}

/**
 * The entries within `bounds`, next to a carried entry: `before` it or `after` it. Numbers follow
 * seqs without gaps within a thread, so the range's numbers come from the carried entry's.
 */
async function rangeOf(tx: Tx, handoffId: string, bounds: SeqBounds, side: "before" | "after", carried: EntryView): Promise<OmittedRange | null> {
  const found = await entryRange(tx, handoffId, bounds);
  if (found.count === 0 || found.first === null || found.last === null) return null;
  const [firstNumber, lastNumber] = side === "before" ? [carried.number - found.count, carried.number - 1] : [carried.number + 1, carried.number + found.count];
  return { firstNumber, lastNumber, firstSeq: found.first, lastSeq: found.last, count: found.count };
}

const entriesWord = (count: number) => (count === 1 ? "entry" : "entries");
/** `#3–#7`, or `#3` alone for one entry, where `#3–#3` read as a range. */
const numbersOf = (first: number, last: number) => (first === last ? `#${first}` : `#${first}–#${last}`);

function hintOf(thread: Pick<HandoffThread, "entries" | "omitted">, reason: string, scope: SeqBounds, cursor: number): string | null {
  const { earlier, later } = thread.omitted;
  if (!earlier && !later) return null;
  const first = thread.entries[0];
  const last = thread.entries[thread.entries.length - 1];
  const sentences = [`This answer carries ${thread.entries.length} ${entriesWord(thread.entries.length)} (${numbersOf(first.number, last.number)}) ${reason}.`];
  if (earlier) {
    sentences.push(
      `Left out ${earlier.count} earlier ${entriesWord(earlier.count)} (${numbersOf(earlier.firstNumber, earlier.lastNumber)}): call get_handoff with ` +
        `before_seq=${first.seq} to read back from there (newest first), or after_seq=${scope.gt ?? 0} to read them from the start.`,
    );
  }
  if (later) {
    const unread = later.lastSeq > cursor ? " Some are new to you: read them before calling mark_handoff_read, which marks the whole thread read." : "";
    sentences.push(
      `Left out ${later.count} later ${entriesWord(later.count)} (${numbersOf(later.firstNumber, later.lastNumber)}): call get_handoff with ` +
        `after_seq=${last.seq}${scope.lt !== undefined ? ` and before_seq=${scope.lt}` : ""} to read on.${unread}`,
    );
  }
  return sentences.join(" ");
}

/** What a read of the thread gives before its staleness is compared with the reader's repository. */
type ThreadRead = {
  thread: Omit<HandoffThread, "staleness">;
  recorded: GitState | null;
  /** The texts whose named paths staleness watches (textsOf). */
  texts: readonly string[];
};

/** `row`: the thread's row when this transaction already read it (threadStampIn). */
async function readThread(tx: Tx, input: z.output<typeof getHandoffInput>, budget: number, row?: HandoffRow): Promise<ThreadRead> {
  const handoff = toHandoffView(row ?? (await loadHandoff(tx, input.id)));
  const cursor = cursorOf(handoff, input.asClient);
  const room = new Room(budget, input.limit ?? Number.MAX_SAFE_INTEGER);
  let entries: EntryView[];
  let scope: SeqBounds;
  // Whether the carried run reaches the start and the end of what was asked: a walk that ran out
  // of rows, not of room, did; then nothing was left out on that side and no statement asks.
  let reachedStart: boolean;
  let reachedEnd: boolean;
  const afterSeq = input.fromNumber === undefined ? input.afterSeq : (await seqOfNumber(tx, input.id, input.fromNumber)) - 1;
  if (afterSeq !== undefined) {
    scope = { gt: afterSeq, lt: input.beforeSeq };
    const walked = await walk(tx, input.id, scope, "asc", room, cursor);
    [entries, reachedStart, reachedEnd] = [walked.entries, true, !walked.full];
  } else if (input.beforeSeq !== undefined) {
    scope = { lt: input.beforeSeq };
    const walked = await walk(tx, input.id, scope, "desc", room, cursor);
    [entries, reachedStart, reachedEnd] = [walked.entries.reverse(), !walked.full, true];
  } else {
    scope = {};
    const fresh = await walk(tx, input.id, { gt: cursor }, "asc", room, cursor);
    const older = fresh.full ? null : await walk(tx, input.id, { lt: cursor + 1 }, "desc", room, cursor);
    [entries, reachedStart, reachedEnd] = [[...(older?.entries.reverse() ?? []), ...fresh.entries], older !== null && !older.full, !fresh.full];
  }
  // The whole thread carried (most reads of a short one): its counts are the answer's own.
  const { count: entryCount, newCount } =
    scope.gt === undefined && scope.lt === undefined && reachedStart && reachedEnd
      ? { count: entries.length, newCount: entries.filter((entry) => entry.seq > cursor).length }
      : await entryCounts(tx, input.id, cursor);
  const earlier = entries.length && !reachedStart ? await rangeOf(tx, input.id, { gt: scope.gt, lt: entries[0].seq }, "before", entries[0]) : null;
  const later = entries.length && !reachedEnd ? await rangeOf(tx, input.id, { gt: entries[entries.length - 1].seq, lt: scope.lt }, "after", entries[entries.length - 1]) : null;
  const omitted = { earlier, later };
  const reason = room.count === 0 ? `(limit=${input.limit})` : `to stay within about ${Math.round(budget / 1000)} KB`;
  const thread = {
    handoff,
    entries,
    newEntries: entries.filter((entry) => entry.seq > cursor),
    newCount,
    entryCount,
    truncated: earlier !== null || later !== null,
    omitted,
    hint: hintOf({ entries, omitted }, reason, scope, cursor),
  };
  return { thread, recorded: await recordedStateOf(tx, input.id), texts: textsOf(thread) };
}

/**
 * Whole-thread reads (no paging parameters: what an agent and the desk ask again and again) are
 * remembered: while the thread is as it was, the same read is answered with the same objects,
 * frozen, instead of reading and building the thread again, and the doors reuse what they made of
 * them (the MCP answer's JSON). Two checks say the thread is as it was:
 * - the database's change stamp (Database.changeStamp, SQLite): nothing changed anywhere, from
 *   any process; no statement at all;
 * - else the thread's own stamp (threadStampIn: its row, one read by primary key): a write to
 *   another thread leaves this one's read standing. The only check on PostgreSQL.
 * Nothing is remembered inside a write transaction, which may yet roll back: another process
 * could then commit, in the same millisecond and with the same seq, a row just like the one the
 * rolled-back write had made, over other entries. The least recently used goes first.
 */
const MAX_REMEMBERED_READS = 16;
type RememberedRead = { stamp: string | null; threadStamp: string; read: ThreadRead; answered: HandoffThread | null };
const rememberedReads = new LRUCache<string, RememberedRead>({ max: MAX_REMEMBERED_READS });

/**
 * The thread as one side sees it, within a byte budget (`THREAD_ANSWER_BUDGET_BYTES`, or a
 * smaller `maxBytes`) and at most `limit` entries:
 * - with `after_seq`: the entries after it, oldest first (and before `before_seq`, if given);
 * - with only `before_seq`: the latest entries before it;
 * - with neither: the entries new to the side first (oldest first), then as many of the entries
 *   before them as still fit, latest first. Without a budget problem that is the whole thread.
 * What was left out is reported as seq ranges with a sentence on how to fetch it. Reading never
 * moves a cursor. A whole-thread read may answer the frozen objects of an earlier one (see
 * rememberedReads): callers never change what they get.
 */
export async function getHandoff(options: GetHandoffOptions): Promise<HandoffThread> {
  const input = parseInput(getHandoffInput, options);
  const budget = input.maxBytes ?? THREAD_ANSWER_BUDGET_BYTES;
  const whole = input.afterSeq === undefined && input.beforeSeq === undefined && input.fromNumber === undefined;
  if (!whole) return withStaleness(await read((tx) => readThread(tx, input, budget)), input.repoPath);
  const key = `${input.id}\0${input.asClient}\0${budget}\0${input.limit ?? ""}`;
  // Taken before reading: any change after it makes the next stamp differ, so nothing remembered is older than its stamp.
  const stamp = await changeStamp();
  let memo = rememberedReads.get(key);
  if (memo === undefined || stamp === null || memo.stamp !== stamp) {
    const known = memo;
    // The thread's stamp and, when it moved, the thread: one snapshot, so the one describes the other.
    memo = await read(async (tx): Promise<RememberedRead> => {
      const thread = await threadStampIn(tx, input.id);
      if (thread === undefined) throw handoffNotFound(input.id);
      if (thread.stamp === known?.threadStamp) return known;
      return { stamp: null, threadStamp: thread.stamp, read: deepFreeze(await readThread(tx, input, budget, thread.row)), answered: null };
    });
    if (!insideWrite()) {
      memo.stamp = stamp;
      rememberedReads.set(key, memo);
    }
  }
  const staleness = await stalenessOf(memo.read, input.repoPath);
  // compareWithRepository answers the same object while the repository has not moved.
  if (memo.answered?.staleness !== staleness) memo.answered = Object.freeze({ ...memo.read.thread, staleness });
  return memo.answered;
}

async function withStaleness(threadRead: ThreadRead, repoPath: string | undefined): Promise<HandoffThread> {
  return { ...threadRead.thread, staleness: await stalenessOf(threadRead, repoPath) };
}

function stalenessOf({ recorded, texts }: ThreadRead, repoPath: string | undefined): Promise<Staleness | null> | null {
  return recorded && repoPath ? compareWithRepository(recorded, repoPath, texts) : null;
}

/**
 * A thread's opening entries (#1 on), at most `count`: the context a reader needs above a long
 * thread's fold. One index range; an unknown ID reads as no entries.
 */
export async function openingEntries(options: { id: unknown; count?: number }): Promise<EntryView[]> {
  const id = parseInput(handoffIdSchema, options.id);
  return read((tx) => entriesOf(tx, id, {}, "asc", Math.min(Math.max(1, options.count ?? 1), MAX_THREAD_LIMIT)));
}

/** Throws NotFound unless `id` names a stored handoff: what a subscription to it (MCP) asks first. */
export async function requireHandoff(id: unknown): Promise<void> {
  const checked = parseInput(handoffIdSchema, id);
  if (!(await read((tx) => handoffExists(tx, checked)))) throw handoffNotFound(checked);
}

/** The thread's latest recorded state, with the files its handoff named (an import's `files`). */
async function recordedStateOf(tx: Tx, id: string): Promise<GitState | null> {
  const raw = await recordedGitOf(tx, id);
  const latest = parseGitState(raw.latest);
  const files = parseGitState(raw.handoff)?.files;
  return latest && files ? { ...latest, files } : latest;
}

function textsOf(thread: Pick<HandoffThread, "handoff" | "entries">): string[] {
  return [thread.handoff.title, ...thread.entries.map((entry) => entry.content)];
}

/**
 * Where a thread stands in git for the dashboard: compared with the recorded repository when
 * that folder exists on this machine, else only what the writer reported. null when nothing
 * was recorded.
 */
export async function gitReportOf(thread: Pick<HandoffThread, "handoff" | "entries">): Promise<GitReport | null> {
  const recorded = await read((tx) => recordedStateOf(tx, thread.handoff.id));
  return recorded ? reportOnThisMachine(recorded, textsOf(thread)) : null;
}
