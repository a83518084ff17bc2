import "server-only";
import { readTransaction } from "../db";
import { isDeliveryStalled } from "../agents/delivery-states";
import { toAgentView, toHandoffRecordView, type AgentView, type HandoffRecordView } from "../agents/views";
import { findWaitingHandoffs, type WaitingHandoff } from "../handoffs/attention";
import { gitReportOf } from "../handoffs/get-handoff";
import type { ClientSide } from "../handoffs/schemas";
import { toHandoffView, type HandoffRow } from "../handoffs/views";
import { read } from "../sqlite";
import { CONTEXT_NEAR_LIMIT_PERCENT } from "./thresholds";

/**
 * What needs the operator now, for the home page and the count in the navigation: each item
 * names the place to act.
 */
export type Attention = {
  questions: WaitingQuestion[];
  /** Handoffs whose new entries stayed unread by a side too long (lib/handoffs, as `handoff.waiting` raises them), less those a question already lists. */
  waiting: WaitingHandoff[];
  deliveries: StalledDelivery[];
  stale: StaleHandoff[];
  nearLimit: AgentView[];
  /** Every item above: the number the navigation and the tab title show. */
  count: number;
  /** How many of the most recently active handoffs were looked at (questions, staleness). */
  scope: { questionHandoffs: number; staleHandoffs: number };
};

/** A question the side it is addressed to has not seen yet. */
export type WaitingQuestion = {
  handoffId: string;
  title: string;
  project: string | null;
  seq: number;
  /** Its number within the thread (#1 is the first entry). */
  number: number;
  waitingFor: ClientSide;
  excerpt: string;
  askedAt: string;
};

/** A shift handoff whose prompt did not reach the successor's pane: failed, or not seen entered in time. */
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
export const QUESTION_SCAN_HANDOFFS = 300;
/** Staleness runs git per handoff with a recorded repository: only the most recently active ones. */
export const STALE_SCAN_HANDOFFS = 30;
/** A handoff's staleness is read from git again after this long (commits do not change handoffs). */
const STALE_TTL_MS = 15_000;
const MAX_QUESTIONS = 50;
const MAX_WAITING = 50;
const EXCERPT_CHARACTERS = 160;

type QuestionRow = {
  id: string;
  title: string;
  project: string | null;
  seq: number;
  from_client: string;
  content: string;
  created_at: string;
  number: number;
};

function waitingQuestions(): WaitingQuestion[] {
  const rows = read(
    (tx) =>
      tx
        .statement(
          `SELECT h.id, h.title, h.project, e.seq, e.from_client, substr(e.content, 1, ${EXCERPT_CHARACTERS + 1}) AS content, e.created_at,
             (SELECT COUNT(*) FROM handoff_entries n WHERE n.handoff_id = h.id AND n.seq <= e.seq) AS number
           FROM (SELECT id, title, project, chat_last_seen, code_last_seen FROM handoffs
                 WHERE status = 'active' ORDER BY updated_at DESC LIMIT ?) h
           JOIN handoff_entries e ON e.handoff_id = h.id AND e.seq > MIN(h.chat_last_seen, h.code_last_seen)
           WHERE e.type = 'question'
             AND e.seq > CASE e.from_client WHEN 'chat' THEN h.code_last_seen ELSE h.chat_last_seen END
           ORDER BY e.seq DESC LIMIT ?`,
        )
        .all(QUESTION_SCAN_HANDOFFS, MAX_QUESTIONS) as QuestionRow[],
  );
  return rows.map((row) => ({
    handoffId: row.id,
    title: row.title,
    project: row.project,
    seq: row.seq,
    number: row.number,
    waitingFor: row.from_client === "chat" ? "code" : "chat",
    excerpt: row.content.length > EXCERPT_CHARACTERS ? `${row.content.slice(0, EXCERPT_CHARACTERS).trimEnd()}…` : row.content,
    askedAt: new Date(row.created_at).toISOString(),
  }));
}

/** Shift handoffs still waiting on their prompt, whose successor is still at work (an ended one no longer needs it). */
async function stalledDeliveries(): Promise<{ deliveries: StalledDelivery[]; nearLimit: AgentView[] }> {
  return readTransaction(async (tx) => {
    const [records, nearLimit] = await Promise.all([
      tx.handoffRecord.findMany({
        where: { deliveryState: { in: ["failed", "queued", "typed"] } },
        include: { agent: true },
        orderBy: { createdAt: "desc" },
      }),
      tx.agent.findMany({
        where: { status: "active", contextPercent: { gte: CONTEXT_NEAR_LIMIT_PERCENT } },
        orderBy: [{ contextPercent: "desc" }, { id: "desc" }],
      }),
    ]);
    const stalled = records.filter((row) => isDeliveryStalled(toHandoffRecordView(row)));
    const successors = stalled.length
      ? await tx.agent.findMany({ where: { previousAgentId: { in: stalled.map((row) => row.agentId) } }, orderBy: { id: "asc" } })
      : [];
    const successorOf = new Map<number, AgentView>();
    for (const row of successors) if (row.previousAgentId !== null && !successorOf.has(row.previousAgentId)) successorOf.set(row.previousAgentId, toAgentView(row));
    const deliveries = stalled
      .map((row) => ({ agent: toAgentView(row.agent), record: toHandoffRecordView(row), successor: successorOf.get(row.agentId) ?? null }))
      .filter((delivery) => delivery.successor === null || delivery.successor.status === "active");
    return { deliveries, nearLimit: nearLimit.map(toAgentView) };
  });
}

type StaleCheck = { at: number; updatedAt: string; result: StaleHandoff | null };
const staleChecks = new Map<string, StaleCheck>();

/**
 * The most recently active handoffs whose repository (recorded when they were written, on this
 * machine) has moved on: the same comparison the thread page shows (lib/handoffs gitReportOf),
 * on the title and recorded files (files named only in entries show on the thread page).
 */
async function staleHandoffs(): Promise<StaleHandoff[]> {
  const rows = read(
    (tx) =>
      tx
        .statement(
          "SELECT id, title, project, chat_last_seen, code_last_seen, status, created_at, updated_at, closed_at FROM handoffs WHERE status = 'active' ORDER BY updated_at DESC LIMIT ?",
        )
        .all(STALE_SCAN_HANDOFFS) as HandoffRow[],
  );
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

/** Everything that needs the operator now. Read-only; git runs only for recently active handoffs with a recorded repository. */
export async function findAttention(): Promise<Attention> {
  const questions = waitingQuestions();
  const asked = new Set(questions.map((question) => `${question.handoffId} ${question.waitingFor}`));
  const [unread, { deliveries, nearLimit }, stale] = await Promise.all([
    findWaitingHandoffs({ limit: MAX_WAITING }),
    stalledDeliveries(),
    staleHandoffs(),
  ]);
  const waiting = unread.filter((item) => !asked.has(`${item.handoff.id} ${item.waitingFor}`));
  return {
    questions,
    waiting,
    deliveries,
    stale,
    nearLimit,
    count: questions.length + waiting.length + deliveries.length + stale.length + nearLimit.length,
    scope: { questionHandoffs: QUESTION_SCAN_HANDOFFS, staleHandoffs: STALE_SCAN_HANDOFFS },
  };
}
