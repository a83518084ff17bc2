import "server-only";
import { z } from "zod";
import { parseGitState, type GitState } from "../git/types";
import { read, storedDate, type Tx } from "../database";
import { parseInput, wholeNumberParam } from "../validation";
import type { ClientSide } from "./schemas";
import { ENTRY_COLUMNS } from "./append-statement";
import { toEntryView, toHandoffView, type EntryRow, type EntryView, type HandoffRow, type HandoffView } from "./views";

/**
 * Handoffs that wait for someone, found without loading threads: those with entries new to a
 * side (what a coding session picks up when it starts), those whose latest question from one
 * side has no later entry from the other (what a session is reminded of when it stops), and
 * those whose new entries have stayed unread for a while (the attention list, `handoff.waiting`).
 * Only active handoffs wait. The first two run in Claude Code's hooks, so their work is bounded
 * whatever the database holds: the most recently active handoffs, the latest entries of each.
 */
const HANDOFF_COLUMNS = "h.id, h.title, h.project, h.chat_last_seen, h.code_last_seen, h.status, h.created_at, h.updated_at, h.closed_at";
const cursorColumn = (side: ClientSide) => (side === "chat" ? "h.chat_last_seen" : "h.code_last_seen");

/** The hooks look at this many of the most recently active handoffs (an index range, then a few statements each). */
export const PICKUP_SCAN_HANDOFFS = 200;
/** …and at this many of each one's latest entries, for a recorded git state or a question. */
export const PICKUP_SCAN_ENTRIES = 20;

type ActiveRow = HandoffRow & { git: string | null };
type RecentEntry = { seq: number; number: number; answers: number | null; from_client: ClientSide; type: string };

function recentActive(tx: Tx, limit: number): Promise<ActiveRow[]> {
  return tx.all<ActiveRow>(`SELECT ${HANDOFF_COLUMNS}, h.git FROM handoffs h WHERE h.status = 'active' ORDER BY h.updated_at DESC, h.id ASC LIMIT ?`, [limit]);
}

/** A thread's latest `count` entries, newest first. */
function recentEntries(tx: Tx, handoffId: string, count = PICKUP_SCAN_ENTRIES): Promise<RecentEntry[]> {
  return tx.all<RecentEntry>("SELECT seq, number, answers, from_client, type FROM handoff_entries WHERE handoff_id = ? ORDER BY seq DESC LIMIT ?", [handoffId, count]);
}

/**
 * The git state the latest of a thread's last PICKUP_SCAN_ENTRIES entries to record one wrote
 * (a code side's write), or null: from the partial index of entries with a state, so no entry is
 * read but that one.
 */
async function recordedGitIn(tx: Tx, handoffId: string): Promise<string | null> {
  const row = await tx.get<{ git: string }>(
    `SELECT git FROM handoff_entries
      WHERE handoff_id = ? AND git IS NOT NULL
        AND seq >= COALESCE((SELECT seq FROM handoff_entries WHERE handoff_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ${PICKUP_SCAN_ENTRIES - 1}), 0)
      ORDER BY seq DESC LIMIT 1`,
    [handoffId, handoffId],
  );
  return row?.git ?? null;
}

/** The git states a handoff recorded: the latest of its recent entries' (recordedGitIn), then its own (at creation). */
async function recordedStates(tx: Tx, row: ActiveRow): Promise<GitState[]> {
  const states = [parseGitState(await recordedGitIn(tx, row.id)), parseGitState(row.git)];
  return states.filter((state): state is GitState => state !== null);
}

export type HandoffNewToSide = {
  handoff: HandoffView;
  /** Entries past the side's cursor. */
  newCount: number;
  /** Who wrote the thread's latest entry. */
  lastWriter: ClientSide;
  /** Where writers' repositories stood (lib/git): the latest an entry recorded, then the handoff's own. */
  recorded: GitState[];
};

/**
 * Among the most recently active handoffs, those with entries new to `side`, latest activity
 * first: one statement counts what is new in each, then, for those with some, the newest entry
 * and the recorded git state (two index lookups and a row or two, not their latest entries).
 */
export async function findHandoffsNewTo(side: ClientSide): Promise<HandoffNewToSide[]> {
  return read(async (tx) => {
    const rows = await tx.all<ActiveRow & { new_count: number }>(
      `SELECT ${HANDOFF_COLUMNS}, h.git, (SELECT COUNT(*) FROM handoff_entries e WHERE e.handoff_id = h.id AND e.seq > ${cursorColumn(side)}) AS new_count
         FROM (SELECT * FROM handoffs WHERE status = 'active' ORDER BY updated_at DESC, id ASC LIMIT ?) h
         ORDER BY h.updated_at DESC, h.id ASC`,
      [PICKUP_SCAN_HANDOFFS],
    );
    const found: HandoffNewToSide[] = [];
    for (const { new_count: newCount, ...row } of rows) {
      if (newCount === 0) continue;
      const [newest] = await recentEntries(tx, row.id, 1);
      found.push({ handoff: toHandoffView(row), newCount, lastWriter: newest.from_client, recorded: await recordedStates(tx, row) });
    }
    return found;
  });
}

export type UnansweredQuestion = {
  handoff: HandoffView;
  /** The latest question the asking side wrote; the other side has written nothing since. */
  question: EntryView;
  recorded: GitState[];
};

/**
 * Among the most recently active handoffs, those whose latest entries (PICKUP_SCAN_ENTRIES) hold
 * a question from `askedBy` with no later entry from the other side and no entry that answers it
 * (`answers`), latest question first.
 */
export async function findUnansweredQuestions(askedBy: ClientSide): Promise<UnansweredQuestion[]> {
  return read(async (tx) => {
    const found: UnansweredQuestion[] = [];
    for (const row of await recentActive(tx, PICKUP_SCAN_HANDOFFS)) {
      // The newest entry decides most threads: written by the other side, it leaves no question
      // of askedBy's open (what they asked before it came first). One row instead of the latest
      // PICKUP_SCAN_ENTRIES: the Stop hook runs at the end of every turn.
      const [newest] = await recentEntries(tx, row.id, 1);
      if (newest?.from_client !== askedBy) continue;
      const recent = await recentEntries(tx, row.id);
      const answered = recent.findIndex((entry) => entry.from_client !== askedBy);
      const replied = new Set(recent.flatMap((entry) => (entry.answers === null ? [] : [entry.answers])));
      const question = recent.slice(0, answered === -1 ? undefined : answered).find((entry) => entry.type === "question" && !replied.has(entry.number));
      if (!question) continue;
      const entry = await tx.get<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM handoff_entries WHERE seq = ?`, [question.seq]);
      found.push({ handoff: toHandoffView(row), question: toEntryView(entry!), recorded: await recordedStates(tx, row) });
    }
    return found.sort((a, b) => b.question.seq - a.question.seq);
  });
}

// ---------------------------------------------------------------------------------------------
// Waiting: new entries left unread for a while

/** How long new entries may stay unread before their handoff is waiting, unless BATON_WAITING_AFTER says otherwise. */
export const DEFAULT_WAITING_AFTER_MS = 30 * 60 * 1000;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
let warnedAbout: string | undefined;

/**
 * BATON_WAITING_AFTER as milliseconds: `45s`, `30m`, `2h`, `500ms`, or a bare number of minutes.
 * A value that is none of these is reported once on stderr and the default (30 min) applies:
 * a mistyped setting must not take the dashboard down.
 */
export function waitingAfterMs(value: string | undefined = process.env.BATON_WAITING_AFTER): number {
  const text = value?.trim();
  if (!text) return DEFAULT_WAITING_AFTER_MS;
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text);
  const ms = match ? Number(match[1]) * UNIT_MS[match[2] ?? "m"] : NaN;
  if (Number.isFinite(ms) && ms > 0) return ms;
  if (warnedAbout !== text) {
    warnedAbout = text;
    process.stderr.write(`baton: BATON_WAITING_AFTER=${JSON.stringify(text)} is not a duration like 45s, 30m or 2h; using 30m\n`);
  }
  return DEFAULT_WAITING_AFTER_MS;
}

export type WaitingHandoff = {
  handoff: HandoffView;
  /** The side that has not read the new entries. */
  waitingFor: ClientSide;
  /** The first entry that side has not read: it names the waiting episode. */
  firstUnreadSeq: number;
  /** That entry's number in its thread (#1 first), as people and the desk's links name it. */
  firstUnreadNumber: number;
  /** When that entry was written (ISO-8601): the handoff has waited since then. */
  since: string;
  /** Entries past that side's cursor. */
  unreadCount: number;
};

const findWaitingInput = z.object({
  /** Only handoffs waiting at least this long; default BATON_WAITING_AFTER (30 min). */
  olderThanMs: wholeNumberParam("olderThanMs", 0, Number.MAX_SAFE_INTEGER),
  /** At most this many, longest waiting first. */
  limit: wholeNumberParam("limit", 1, 10_000),
});

/**
 * One side's waiting handoffs, longest waiting first, in the caller's transaction (the webhook
 * watch's). handoff_unread (kept by the database's triggers) holds when each active handoff's
 * first entry past the side's cursor was written, so the longest waiting are an index range
 * whatever the number of handoffs; the first unread entry and the unread count are looked up
 * only for the `limit` kept.
 */
export async function waitingIn(tx: Tx, side: ClientSide, cutoff: string, limit: number): Promise<WaitingHandoff[]> {
  const cursor = cursorColumn(side);
  const rows = await tx.all<HandoffRow & { first_seq: number; first_number: number; since: string; unread: number }>(
    `SELECT ${HANDOFF_COLUMNS}, w.since,
         (SELECT MIN(e.seq) FROM handoff_entries e WHERE e.handoff_id = h.id AND e.seq > ${cursor}) AS first_seq,
         (SELECT MIN(e.number) FROM handoff_entries e WHERE e.handoff_id = h.id AND e.seq > ${cursor}) AS first_number,
         (SELECT COUNT(*) FROM handoff_entries e WHERE e.handoff_id = h.id AND e.seq > ${cursor}) AS unread
       FROM (
         SELECT u.handoff_id AS id, u.since
         FROM handoff_unread u JOIN handoffs h ON h.id = u.handoff_id
         WHERE u.side = ? AND u.since <= ? AND h.status = 'active'
         ORDER BY u.since ASC, u.handoff_id ASC LIMIT ?
       ) w JOIN handoffs h ON h.id = w.id
       ORDER BY w.since ASC, h.id ASC`,
    [side, cutoff, limit],
  );
  return rows.map((row) => ({
    handoff: toHandoffView(row),
    waitingFor: side,
    firstUnreadSeq: row.first_seq,
    firstUnreadNumber: row.first_number,
    since: new Date(row.since).toISOString(),
    unreadCount: row.unread,
  }));
}

/**
 * Handoffs whose new entries have stayed unread by the other side for at least `olderThanMs`
 * (default BATON_WAITING_AFTER, 30 min), longest waiting first; a handoff waiting for both
 * sides appears once per side. For the home page's attention list and `handoff.waiting`.
 */
export async function findWaitingHandoffs(options: { olderThanMs?: number | string; limit?: number | string; now?: Date } = {}): Promise<WaitingHandoff[]> {
  const input = parseInput(findWaitingInput, { olderThanMs: options.olderThanMs, limit: options.limit });
  const olderThan = input.olderThanMs ?? waitingAfterMs();
  const limit = input.limit ?? 100;
  const cutoff = storedDate(new Date((options.now ?? new Date()).getTime() - olderThan));
  return read(async (tx) =>
    [...(await waitingIn(tx, "chat", cutoff, limit)), ...(await waitingIn(tx, "code", cutoff, limit))]
      .sort((a, b) => a.since.localeCompare(b.since) || a.handoff.id.localeCompare(b.handoff.id))
      .slice(0, limit),
  );
}
