import "server-only";
import { z } from "zod";
import { parseGitState, type GitState } from "../git/types";
import { read, storedDate, type Sql } from "../sqlite";
import { parseInput, wholeNumberParam } from "../validation";
import type { ClientSide } from "./schemas";
import { toEntryView, toHandoffView, type EntryView, type HandoffRow, type HandoffView } from "./views";

/**
 * Handoffs that wait for someone, found without loading threads: those with entries new to a
 * side (what a coding session picks up when it starts), those whose latest question from one
 * side has no later entry from the other (what a session is reminded of when it stops), and
 * those whose new entries have stayed unread for a while (the attention list, `handoff.waiting`).
 * Only active handoffs wait.
 */
const HANDOFF_COLUMNS = "h.id, h.title, h.project, h.chat_last_seen, h.code_last_seen, h.status, h.created_at, h.updated_at, h.closed_at";
const cursorColumn = (side: ClientSide) => (side === "chat" ? "h.chat_last_seen" : "h.code_last_seen");
const otherSide = (side: ClientSide): ClientSide => (side === "chat" ? "code" : "chat");

/** The thread's latest recorded git state (its newest entry that carries one, else the handoff's own), as SQL. */
const RECORDED_GIT = `COALESCE((SELECT e.git FROM handoff_entries e WHERE e.handoff_id = h.id AND e.git IS NOT NULL ORDER BY e.seq DESC LIMIT 1), h.git)`;

export type HandoffNewToSide = {
  handoff: HandoffView;
  /** Entries past the side's cursor. */
  newCount: number;
  /** Who wrote the thread's latest entry. */
  lastWriter: ClientSide;
  /** Where the latest writer's repository stood (lib/git): which repository the thread belongs to. */
  recorded: GitState | null;
};

/** Active handoffs with entries new to `side`, latest activity first. */
export function findHandoffsNewTo(side: ClientSide): HandoffNewToSide[] {
  const cursor = cursorColumn(side);
  return read((tx) => {
    const rows = tx
      .statement(
        `SELECT ${HANDOFF_COLUMNS}, ${RECORDED_GIT} AS recorded,
           (SELECT COUNT(*) FROM handoff_entries e WHERE e.handoff_id = h.id AND e.seq > ${cursor}) AS new_count,
           (SELECT e.from_client FROM handoff_entries e WHERE e.handoff_id = h.id ORDER BY e.seq DESC LIMIT 1) AS last_writer
         FROM handoffs h
         WHERE h.status = 'active' AND EXISTS (SELECT 1 FROM handoff_entries e WHERE e.handoff_id = h.id AND e.seq > ${cursor})
         ORDER BY h.updated_at DESC, h.id ASC`,
      )
      .all() as (HandoffRow & { recorded: string | null; new_count: number; last_writer: ClientSide })[];
    return rows.map((row) => ({ handoff: toHandoffView(row), newCount: row.new_count, lastWriter: row.last_writer, recorded: parseGitState(row.recorded) }));
  });
}

export type UnansweredQuestion = {
  handoff: HandoffView;
  /** The latest question the asking side wrote; the other side has written nothing since. */
  question: EntryView;
  recorded: GitState | null;
};

type QuestionRow = HandoffRow & {
  recorded: string | null;
  q_seq: number;
  q_from_client: string;
  q_type: string;
  q_content: string;
  q_created_at: string;
};

/** Active handoffs whose latest question from `askedBy` has no later entry from the other side, latest question first. */
export function findUnansweredQuestions(askedBy: ClientSide): UnansweredQuestion[] {
  return read((tx) => {
    const rows = tx
      .statement(
        `SELECT ${HANDOFF_COLUMNS}, ${RECORDED_GIT} AS recorded,
           q.seq AS q_seq, q.from_client AS q_from_client, q.type AS q_type, q.content AS q_content, q.created_at AS q_created_at
         FROM handoffs h
         JOIN handoff_entries q ON q.seq = (SELECT MAX(e.seq) FROM handoff_entries e WHERE e.handoff_id = h.id AND e.from_client = @askedBy AND e.type = 'question')
         WHERE h.status = 'active'
           AND NOT EXISTS (SELECT 1 FROM handoff_entries a WHERE a.handoff_id = h.id AND a.from_client = @answeredBy AND a.seq > q.seq)
         ORDER BY q.seq DESC`,
      )
      .all({ askedBy, answeredBy: otherSide(askedBy) }) as QuestionRow[];
    return rows.map((row) => ({
      handoff: toHandoffView(row),
      question: toEntryView({ seq: row.q_seq, handoff_id: row.id, from_client: row.q_from_client, type: row.q_type, content: row.q_content, created_at: row.q_created_at }),
      recorded: parseGitState(row.recorded),
    }));
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
  /** The first entry that side has not read (written by the other side): it names the waiting episode. */
  firstUnreadSeq: number;
  /** When that entry was written (ISO-8601): the handoff has waited since then. */
  since: string;
  /** Entries past that side's cursor. */
  unreadCount: number;
};

const findWaitingInput = z.object({
  /** Only handoffs waiting at least this long; default BATON_WAITING_AFTER (30 min). */
  olderThanMs: wholeNumberParam("olderThanMs", 0, Number.MAX_SAFE_INTEGER),
  /** At most this many, longest waiting first. */
  limit: wholeNumberParam("limit", 1, 1000),
});

/** One side's waiting handoffs, read inside the caller's transaction (the webhook watcher's). */
export function waitingIn(tx: Sql, side: ClientSide, cutoff: string, limit: number): WaitingHandoff[] {
  const cursor = cursorColumn(side);
  const rows = tx
    .statement(
      `SELECT ${HANDOFF_COLUMNS}, f.seq AS first_seq, f.created_at AS since,
         (SELECT COUNT(*) FROM handoff_entries e WHERE e.handoff_id = h.id AND e.seq > ${cursor}) AS unread
       FROM handoffs h
       JOIN handoff_entries f ON f.seq = (
         SELECT e.seq FROM handoff_entries e WHERE e.handoff_id = h.id AND e.seq > ${cursor} AND e.from_client <> @side ORDER BY e.seq LIMIT 1)
       WHERE h.status = 'active' AND f.created_at <= @cutoff
       ORDER BY f.created_at ASC, h.id ASC LIMIT @limit`,
    )
    .all({ side, cutoff, limit }) as (HandoffRow & { first_seq: number; since: string; unread: number })[];
  return rows.map((row) => {
    const handoff = toHandoffView(row);
    return { handoff, waitingFor: side, firstUnreadSeq: row.first_seq, since: new Date(row.since).toISOString(), unreadCount: row.unread };
  });
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
  return read((tx) =>
    [...waitingIn(tx, "chat", cutoff, limit), ...waitingIn(tx, "code", cutoff, limit)]
      .sort((a, b) => a.since.localeCompare(b.since) || a.handoff.id.localeCompare(b.handoff.id))
      .slice(0, limit),
  );
}
