import "server-only";
import { z } from "zod";
import { currentCaller, operatorKeyOf } from "../caller";
import { MAX_INT4, read, storedDate, write, type Tx } from "../database";
import { Forbidden, Invalid } from "../errors";
import { isoOf } from "../iso-date";
import { waitingAfterMs } from "../handoffs/attention";
import { clientSideSchema, handoffIdSchema, type ClientSide } from "../handoffs/schemas";
import { handoffNotFound } from "../handoffs/store";
import { parseInput, wholeNumberParam, type DoorInput } from "../validation";
import { findAttention, withCount, type Attention, type SideAttention, type ThreadAttention } from "./find-attention";

/**
 * Done and Snooze on the rows of "Needs you now", kept per operator and per side the row waits
 * for (the only module that writes `attention_marks`). What a mark hides:
 * - done: what the row held when it was marked; what is written after it (a question, entries
 *   left unread past BATON_WAITING_AFTER) brings the row back with only that;
 * - snoozed until a time: the whole row, until then;
 * - snoozed until new: the whole row, until the thread's next entry.
 * Marking read or answering needs no mark: the row then has nothing left to show.
 */
export const ATTENTION_MARK_KINDS = ["done", "snoozed"] as const;
/** Snoozing further ahead than this is refused: it is a typo, or a wish for Done. */
const MAX_SNOOZE_MS = 366 * 24 * 3_600_000;

const markInput = z.object({
  handoffId: handoffIdSchema,
  /** The sides the row waits for: a list, or one string of them separated by spaces (a form's field). */
  sides: z.preprocess(
    (value) => (typeof value === "string" ? value.split(" ").filter(Boolean) : value),
    z.array(clientSideSchema, { error: "sides must name the sides the row waits for" }).min(1, { error: "name at least one side" }).max(2),
  ),
  kind: z.enum(ATTENTION_MARK_KINDS, { error: 'kind must be "done" or "snoozed"' }),
  /** The thread's last entry number the row showed: a mark never hides what the operator has not seen. */
  throughNumber: wholeNumberParam("throughNumber", 0, MAX_INT4),
  /** Snoozed until this time (ISO-8601); absent: until the next new entry. */
  until: z.iso.datetime({ offset: true, error: "until must be an ISO-8601 time, e.g. 2026-11-26T09:00:00Z" }).optional(),
});

export type MarkAttentionOptions = DoorInput<typeof markInput>;

function operatorOfCaller(): string {
  const operator = operatorKeyOf(currentCaller());
  if (!operator) throw new Forbidden("only an operator keeps a desk: sign in with an operator token");
  return operator;
}

/** Marks a thread's row Done, or snoozes it, for the calling operator. Marking again replaces the mark. */
export async function markAttention(options: MarkAttentionOptions): Promise<void> {
  const input = parseInput(markInput, options);
  const operator = operatorOfCaller();
  if (input.kind === "done" && input.until !== undefined) throw new Invalid("until is for snoozing; Done has no time", { until: ["is for snoozing only"] });
  const until = input.until === undefined ? null : new Date(input.until);
  if (until && (until.getTime() <= Date.now() || until.getTime() - Date.now() > MAX_SNOOZE_MS)) {
    throw new Invalid("until must be in the future, within a year", { until: ["must be in the future, within a year"] });
  }
  await write(async (tx) => {
    const last = await lastNumberOf(tx, input.handoffId);
    const through = Math.min(input.throughNumber ?? last, last);
    for (const side of new Set(input.sides)) {
      await tx.run(
        `INSERT INTO attention_marks (operator, handoff_id, side, kind, through_number, until, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (operator, handoff_id, side) DO UPDATE SET kind = excluded.kind, through_number = excluded.through_number, until = excluded.until, created_at = excluded.created_at`,
        [operator, input.handoffId, side, input.kind, through, until && storedDate(until), storedDate()],
      );
    }
  });
}

/** Takes the calling operator's marks off a thread's row: it shows everything again. */
export async function unmarkAttention(options: { handoffId: unknown }): Promise<void> {
  const handoffId = parseInput(handoffIdSchema, options.handoffId);
  const operator = operatorOfCaller();
  await write((tx) => tx.run("DELETE FROM attention_marks WHERE operator = ? AND handoff_id = ?", [operator, handoffId]));
}

async function lastNumberOf(tx: Tx, id: string): Promise<number> {
  const row = await tx.get<{ last_number: number }>("SELECT last_number FROM handoffs WHERE id = ?", [id]);
  if (!row) throw handoffNotFound(id);
  return row.last_number;
}

type MarkRow = { handoff_id: string; side: ClientSide; kind: (typeof ATTENTION_MARK_KINDS)[number]; through_number: number; until: string | null };

/**
 * The attention as the calling operator sees it: their marks applied to the thread rows. The
 * rest (deliveries, stale handoffs, agents near their limit) is the same for every operator.
 */
export async function attentionForCaller(attention: Attention): Promise<Attention> {
  const operator = operatorKeyOf(currentCaller());
  if (!operator || attention.threads.length === 0) return attention;
  const threads = await read(async (tx) => {
    const marks = await tx.all<MarkRow>("SELECT handoff_id, side, kind, through_number, until FROM attention_marks WHERE operator = ?", [operator]);
    if (marks.length === 0) return attention.threads;
    const markOf = new Map(marks.map((mark) => [`${mark.handoff_id} ${mark.side}`, mark]));
    const cutoff = Date.now() - waitingAfterMs();
    const kept: ThreadAttention[] = [];
    for (const thread of attention.threads) {
      const sides: SideAttention[] = [];
      for (const side of thread.sides) {
        const mark = markOf.get(`${thread.handoffId} ${side.side}`);
        const shown = mark ? await afterMark(tx, thread, side, mark, cutoff) : side;
        if (shown) sides.push(shown);
      }
      if (sides.length > 0) kept.push({ ...thread, sides });
    }
    return kept;
  });
  return withCount({ ...attention, threads });
}

/** What needs the calling operator now: findAttention with their own Done and Snooze applied. */
export async function attentionOfCaller(): Promise<Attention> {
  return attentionForCaller(await findAttention());
}

/** What a side of a row still shows under its mark; null when the mark hides it all. */
async function afterMark(tx: Tx, thread: ThreadAttention, side: SideAttention, mark: MarkRow, cutoff: number): Promise<SideAttention | null> {
  if (mark.kind === "snoozed") {
    const hidden = mark.until === null ? thread.lastNumber <= mark.through_number : new Date(isoOf(mark.until)).getTime() > Date.now();
    return hidden ? null : side;
  }
  const questions = side.questions.filter((question) => question.number > mark.through_number);
  const unread = await tx.get<{ count: number; since: string | null; first: number | null }>(
    `SELECT COUNT(*) AS count, MIN(e.created_at) AS since, MIN(e.number) AS first FROM handoff_entries e
     WHERE e.handoff_id = ? AND e.number > ? AND e.seq > (SELECT ${side.side === "chat" ? "chat_last_seen" : "code_last_seen"} FROM handoffs WHERE id = ?)`,
    [thread.handoffId, mark.through_number, thread.handoffId],
  );
  const since = unread?.since ? isoOf(unread.since) : null;
  const waitingSince = since !== null && new Date(since).getTime() <= cutoff ? since : null;
  if (questions.length === 0 && waitingSince === null) return null;
  return {
    ...side,
    questions,
    newCount: unread?.count ?? 0,
    waitingSince,
    openAt: questions.length > 0 ? Math.min(...questions.map((question) => question.number)) : (unread?.first ?? side.openAt),
  };
}
