import "server-only";
import { AGENT_COLUMNS, idListSql, JOINED_RECORD_COLUMNS, joinedRecordOf, toAgentView, toHandoffRecordView, type AgentRow, type JoinedAgentRow } from "../agents/rows";
import type { AgentView, HandoffRecordView } from "../agents/views";
import { latestChangeSeq } from "../changes";
import { waitingAfterMs, waitingIn, type WaitingHandoff } from "../handoffs/attention";
import { gitReportOf } from "../handoffs/get-handoff";
import type { ClientSide } from "../handoffs/schemas";
import { toHandoffView, type HandoffRow } from "../handoffs/views";
import { read, storedDate, type Tx } from "../database";
import { isoOf } from "../iso-date";
import { plainTextOf } from "../plain-text";
import { CONTEXT_NEAR_LIMIT_PERCENT } from "./thresholds";

/**
 * What needs the operator now, for the home page and the count in the navigation: each item
 * names the place to act.
 */
export type Attention = {
  /** "Needs you now": one row per thread that waits for a side, newest first. */
  threads: ThreadAttention[];
  deliveries: StalledDelivery[];
  stale: StaleHandoff[];
  nearLimit: AgentView[];
  /** Every item above: the number the navigation and the tab title show. */
  count: number;
  /** How many of the most recently active handoffs were looked at (questions, staleness). */
  scope: { questionHandoffs: number; staleHandoffs: number };
};

/** A question the side it is addressed to has neither seen nor answered. */
export type WaitingQuestion = {
  seq: number;
  /** Its number within the thread (#1 is the first entry). */
  number: number;
  excerpt: string;
  askedAt: string;
};

/** What one thread holds for one side. */
export type SideAttention = {
  side: ClientSide;
  /** Unanswered questions it has not seen, latest first. */
  questions: WaitingQuestion[];
  /** Entries past its cursor (what "12 new entries" counts). */
  newCount: number;
  /** When the oldest of them was written, once they have stayed unread past BATON_WAITING_AFTER; null before. */
  waitingSince: string | null;
  /** The entry to open the thread at: the first question, else the first new entry. */
  openAt: number;
};

/** One row of "Needs you now": a thread, with what it holds for each side it waits for. */
export type ThreadAttention = {
  handoffId: string;
  title: string;
  project: string | null;
  sides: SideAttention[];
  /** The thread's latest entry number when this was read: what Done and Snooze mark through. */
  lastNumber: number;
  /** Its newest item (question asked, or entry left unread): rows are listed newest first. */
  latestAt: string;
};

/** A shift handoff whose prompt did not reach the successor's pane (failed, or not seen entered in time), which Retry can still deliver. */
export type StalledDelivery = {
  agent: AgentView;
  record: HandoffRecordView;
  successor: AgentView | null;
};

export type StaleHandoff = { handoffId: string; title: string; project: string | null; block: string; commitsSince: number };

/**
 * Questions are looked for among this many of the most recently active handoffs: a question is
 * an entry, so its thread was active when it was asked, and the cost stays bounded on a large
 * database (each thread costs an index range over its unseen entries).
 */
export const QUESTION_SCAN_HANDOFFS = 100;
/** Staleness runs git per handoff with a recorded repository: only the most recently active ones. */
export const STALE_SCAN_HANDOFFS = 30;
/** A handoff's staleness is read from git again after this long (commits do not change handoffs). */
const STALE_TTL_MS = 15_000;
const MAX_QUESTIONS = 50;
const MAX_WAITING = 50;
const EXCERPT_CHARACTERS = 160;
/** Of an entry's Markdown, what is read for its excerpt: enough for 160 characters of text once the markup is gone. */
const EXCERPT_SOURCE_CHARACTERS = 4 * EXCERPT_CHARACTERS;

type QuestionRow = {
  id: string;
  title: string;
  project: string | null;
  seq: number;
  number: number;
  from_client: string;
  content: string;
  created_at: string;
};

type ThreadKey = Pick<ThreadAttention, "handoffId" | "title" | "project">;
type AskedQuestion = WaitingQuestion & ThreadKey & { side: ClientSide };

/**
 * Questions neither seen nor answered by the side they are for, among the QUESTION_SCAN_HANDOFFS
 * most recently active handoffs: each thread's range of entries past the lower of its two
 * cursors. A question is answered once a later entry names it (`answers`).
 */
async function waitingQuestions(tx: Tx): Promise<AskedQuestion[]> {
  const rows = await tx.all<QuestionRow>(
    `SELECT h.id, h.title, h.project, e.seq, e.number, e.from_client, substr(e.content, 1, ${EXCERPT_SOURCE_CHARACTERS}) AS content, e.created_at
     FROM (SELECT id, title, project, chat_last_seen, code_last_seen FROM handoffs
           WHERE status = 'active' ORDER BY updated_at DESC, id ASC LIMIT ?) h
     JOIN handoff_entries e ON e.handoff_id = h.id
       AND e.seq > CASE WHEN h.chat_last_seen < h.code_last_seen THEN h.chat_last_seen ELSE h.code_last_seen END
     WHERE e.type = 'question'
       AND e.seq > CASE e.from_client WHEN 'chat' THEN h.code_last_seen ELSE h.chat_last_seen END
       AND NOT EXISTS (SELECT 1 FROM handoff_entries a WHERE a.handoff_id = h.id AND a.seq > e.seq AND a.answers = e.number)
     ORDER BY e.seq DESC LIMIT ?`,
    [QUESTION_SCAN_HANDOFFS, MAX_QUESTIONS],
  );
  return rows.map((row) => ({
    handoffId: row.id,
    title: row.title,
    project: row.project,
    seq: row.seq,
    number: row.number,
    side: row.from_client === "chat" ? "code" : "chat",
    excerpt: plainTextOf(row.content, EXCERPT_CHARACTERS, row.content.length >= EXCERPT_SOURCE_CHARACTERS),
    askedAt: new Date(row.created_at).toISOString(),
  }));
}

type ThreadState = {
  updated_at: string;
  last_number: number;
  chat_new: number;
  code_new: number;
};

/**
 * One row per thread from its questions and its entries left unread: per side, how many entries
 * are new and where to open; the thread's last number. Two counts on the (handoff_id, seq) index
 * per thread listed, no entry read: numbers follow seqs without gaps within a thread, so the
 * first new entry's number is the last number less the new ones.
 */
async function threadRows(tx: Tx, questions: AskedQuestion[], waiting: WaitingHandoff[]): Promise<ThreadAttention[]> {
  const drafts = new Map<string, ThreadKey & { sides: Map<ClientSide, { questions: WaitingQuestion[]; waitingSince: string | null }> }>();
  const sideOf = (thread: ThreadKey, side: ClientSide) => {
    const draft = drafts.get(thread.handoffId) ?? { ...thread, sides: new Map() };
    drafts.set(thread.handoffId, draft);
    const held = draft.sides.get(side) ?? { questions: [], waitingSince: null };
    draft.sides.set(side, held);
    return held;
  };
  for (const { handoffId, title, project, side, ...question } of questions) sideOf({ handoffId, title, project }, side).questions.push(question);
  for (const item of waiting) sideOf({ handoffId: item.handoff.id, title: item.handoff.title, project: item.handoff.project }, item.waitingFor).waitingSince = item.since;
  const rows: ThreadAttention[] = [];
  for (const draft of drafts.values()) {
    const state = await tx.get<ThreadState>(
      `SELECT h.updated_at, h.last_number,
         (SELECT COUNT(*) FROM handoff_entries e WHERE e.handoff_id = h.id AND e.seq > h.chat_last_seen) AS chat_new,
         (SELECT COUNT(*) FROM handoff_entries e WHERE e.handoff_id = h.id AND e.seq > h.code_last_seen) AS code_new
       FROM handoffs h WHERE h.id = ?`,
      [draft.handoffId],
    );
    if (!state) continue;
    const sides = [...draft.sides].map(([side, held]): SideAttention => {
      const newCount = side === "chat" ? state.chat_new : state.code_new;
      const first = newCount > 0 ? state.last_number - newCount + 1 : state.last_number;
      return {
        side,
        questions: held.questions,
        newCount,
        waitingSince: held.waitingSince,
        openAt: held.questions.length > 0 ? Math.min(...held.questions.map((question) => question.number)) : first,
      };
    });
    rows.push({ handoffId: draft.handoffId, title: draft.title, project: draft.project, sides, lastNumber: state.last_number, latestAt: isoOf(state.updated_at) });
  }
  return rows.sort((a, b) => b.latestAt.localeCompare(a.latestAt) || a.handoffId.localeCompare(b.handoffId));
}

/**
 * Shift handoffs still waiting on their prompt (failed, or not seen entered in time) that Retry
 * can still deliver (their successor is at work: lib/agents deliveryProblemOf), and active agents
 * near their context limit.
 */
async function stalledDeliveries(tx: Tx): Promise<{ deliveries: StalledDelivery[]; nearLimit: AgentView[] }> {
  const records = await tx.all<JoinedAgentRow>(
    `SELECT ${AGENT_COLUMNS}, ${JOINED_RECORD_COLUMNS} FROM handoff_records r JOIN agents a ON a.id = r.agent_id
     WHERE r.delivery_state IN ('failed', 'queued', 'typed') ORDER BY r.created_at DESC`,
  );
  const stalled = records
    .map((row) => ({ agent: toAgentView(row), record: toHandoffRecordView(joinedRecordOf(row)!) }))
    .filter(({ record }) => record.deliveryProblem?.kind === "stalled");
  const successors = stalled.length
    ? await tx.all<AgentRow>(`SELECT ${AGENT_COLUMNS} FROM agents a WHERE a.previous_agent_id IN ${idListSql(tx)} ORDER BY a.id`, [
        JSON.stringify(stalled.map(({ agent }) => agent.id)),
      ])
    : [];
  const successorOf = new Map<number, AgentView>();
  for (const row of successors) if (row.previous_agent_id !== null && !successorOf.has(row.previous_agent_id)) successorOf.set(row.previous_agent_id, toAgentView(row));
  const deliveries = stalled.map((delivery) => ({ ...delivery, successor: successorOf.get(delivery.agent.id) ?? null }));
  const nearLimit = await tx.all<AgentRow>(
    `SELECT ${AGENT_COLUMNS} FROM agents a WHERE a.status = 'active' AND a.context_percent >= ? ORDER BY a.context_percent DESC, a.id DESC`,
    [CONTEXT_NEAR_LIMIT_PERCENT],
  );
  return { deliveries, nearLimit: nearLimit.map(toAgentView) };
}

/** The most recently active handoffs, the window staleness is looked for in. */
function recentHandoffs(tx: Tx): Promise<HandoffRow[]> {
  return tx.all<HandoffRow>(
    "SELECT id, title, project, chat_last_seen, code_last_seen, status, created_at, updated_at, closed_at FROM handoffs WHERE status = 'active' ORDER BY updated_at DESC, id ASC LIMIT ?",
    [STALE_SCAN_HANDOFFS],
  );
}

type StaleCheck = { at: number; updatedAt: string; result: StaleHandoff | null };
const staleChecks = new Map<string, StaleCheck>();

/**
 * The most recently active handoffs whose repository (recorded when they were written, on this
 * machine) has moved on: the same comparison the thread page shows (lib/handoffs gitReportOf),
 * on the title and recorded files (files named only in entries show on the thread page).
 */
async function staleHandoffs(rows: HandoffRow[]): Promise<StaleHandoff[]> {
  const now = Date.now();
  const results = await Promise.all(
    rows.map(async (row) => {
      const held = staleChecks.get(row.id);
      if (held && held.updatedAt === row.updated_at && now - held.at < STALE_TTL_MS) return held.result;
      const handoff = toHandoffView(row);
      const report = await gitReportOf({ handoff, entries: [] });
      const result = report?.staleness
        ? { handoffId: row.id, title: row.title, project: row.project, block: report.staleness.block, commitsSince: report.staleness.commitsSince }
        : null;
      staleChecks.set(row.id, { at: now, updatedAt: row.updated_at, result });
      return result;
    }),
  );
  // Forget handoffs that left the window, so the cache stays the window's size.
  const inWindow = new Set(rows.map((row) => row.id));
  for (const id of staleChecks.keys()) if (!inWindow.has(id)) staleChecks.delete(id);
  return results.filter((result): result is StaleHandoff => result !== null);
}

/** What needs the operator now, read afresh (findAttention reuses it): what the bench times. */
export async function computeAttention(): Promise<Attention> {
  const cutoff = storedDate(new Date(Date.now() - waitingAfterMs()));
  // One snapshot for the desk's own reads; git (staleness) runs after it.
  const { threads, deliveries, nearLimit, recent } = await read(async (tx) => {
    const waiting = [...(await waitingIn(tx, "chat", cutoff, MAX_WAITING)), ...(await waitingIn(tx, "code", cutoff, MAX_WAITING))];
    return {
      threads: await threadRows(tx, await waitingQuestions(tx), waiting),
      ...(await stalledDeliveries(tx)),
      recent: await recentHandoffs(tx),
    };
  });
  const stale = await staleHandoffs(recent);
  return withCount({
    threads,
    deliveries,
    stale,
    nearLimit,
    scope: { questionHandoffs: QUESTION_SCAN_HANDOFFS, staleHandoffs: STALE_SCAN_HANDOFFS },
  });
}

/** The attention with its count: every thread row and every other item. */
export function withCount(attention: Omit<Attention, "count">): Attention {
  const { threads, deliveries, stale, nearLimit } = attention;
  return { ...attention, count: threads.length + deliveries.length + stale.length + nearLimit.length };
}

/**
 * Reused while nothing was written (the change feed has not moved) for up to this long: every
 * page asks (the navigation's count), and on a large database the queries take tens of
 * milliseconds. Time alone also changes the answer (entries start waiting, deliveries stall,
 * repositories move on), hence the limit.
 */
export const ATTENTION_REUSE_MS = 10_000;
let held: { seq: number; at: number; attention: Promise<Attention> } | null = null;

/** Everything that needs the operator now. Read-only; git runs only for recently active handoffs with a recorded repository. */
export async function findAttention(): Promise<Attention> {
  const seq = await latestChangeSeq();
  const now = Date.now();
  if (held && held.seq === seq && now - held.at < ATTENTION_REUSE_MS) return held.attention;
  const attention = computeAttention();
  const entry = { seq, at: now, attention };
  held = entry;
  // A failed read is not kept: the next page asks again.
  attention.catch(() => {
    if (held === entry) held = null;
  });
  return attention;
}
