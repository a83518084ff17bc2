import "server-only";
import type { Tx } from "../database";
import { isoOf } from "../iso-date";
import type { Change, ChangeSubject } from "./types";

/** Reading the `changes` table, for the feed (fan-out.ts), its followers and pruning. */
export type Row = {
  seq: number;
  subject: ChangeSubject;
  action: Change["action"];
  handoff_id: string | null;
  agent_id: number | null;
  entry_seq: number | null;
  created_at: string;
};

export const changeOf = (row: Row): Change => ({
  seq: row.seq,
  subject: row.subject,
  action: row.action,
  handoffId: row.handoff_id,
  agentId: row.agent_id,
  entrySeq: row.entry_seq,
  at: isoOf(row.created_at),
});

/**
 * The highest seq ever handed out, committed or not (0 before the first). On SQLite that is
 * the latest committed change: writers commit one at a time.
 */
export async function allocatedIn(tx: Tx): Promise<number> {
  const row =
    tx.engine === "postgres"
      ? await tx.get<{ seq: number }>("SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS seq FROM changes_seq_seq")
      : await tx.get<{ seq: number }>("SELECT seq FROM sqlite_sequence WHERE name = 'changes'");
  return row?.seq ?? 0;
}

export const rowsAfter = async (tx: Tx, after: number, limit: number) =>
  (await tx.all<Row>("SELECT seq, subject, action, handoff_id, agent_id, entry_seq, created_at FROM changes WHERE seq > ? ORDER BY seq LIMIT ?", [after, limit])).map(
    changeOf,
  );

/** A thread's new-entry changes after `after`, in seq order: what a close reads before it wipes the entries they name. */
export const entryChangesOfThreadAfter = async (tx: Tx, handoffId: string, after: number) =>
  (
    await tx.all<Row>("SELECT seq, subject, action, handoff_id, agent_id, entry_seq, created_at FROM changes WHERE seq > ? AND handoff_id = ? AND subject = 'entry' ORDER BY seq", [
      after,
      handoffId,
    ])
  ).map(changeOf);

/** PostgreSQL's `xmin:xmax:xip,…` snapshot: which writing transactions were running. */
export type Snapshot = { xmax: bigint; running: Set<string> };
export const snapshotOf = (text: string): Snapshot => {
  const [, xmax, running] = text.split(":");
  return { xmax: BigInt(xmax), running: new Set(running ? running.split(",") : []) };
};
export const stillRunning = (snapshot: Snapshot, xid: string) => snapshot.running.has(xid) || BigInt(xid) >= snapshot.xmax;
export const SNAPSHOT = "SELECT CAST(pg_current_snapshot() AS TEXT) AS snapshot";

