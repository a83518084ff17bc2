/**
 * What the change feed carries, shared by the server (lib/changes) and the dashboard's live hook
 * (components/live). Client-safe: no server imports.
 */
export const CHANGE_SUBJECTS = ["handoff", "entry", "agent", "shift_handoff"] as const;
export type ChangeSubject = (typeof CHANGE_SUBJECTS)[number];
export type ChangeAction = "created" | "updated" | "closed";

/** One row of the `changes` table, which triggers append on every write, whichever process wrote. */
export type Change = {
  /** Global and increasing; the SSE event id, and what a client resumes after. */
  seq: number;
  subject: ChangeSubject;
  action: ChangeAction;
  handoffId: string | null;
  agentId: number | null;
  /** The entry's own seq, for `entry` changes. */
  entrySeq: number | null;
  /** When it was written, ISO-8601 (to the second on SQLite, the millisecond on PostgreSQL). */
  at: string;
};

/** Which changes a subscriber wants: every field it gives must hold (all changes when none is given). */
export type ChangeFilter = {
  handoffId?: string;
  agentId?: number;
  /** Only these subjects (all when absent). */
  subjects?: readonly ChangeSubject[];
};

/** Whether `filter` wants `change`: the server's streams and a tab's listeners (components/live) ask the same. */
export function matches(change: Change, filter: ChangeFilter): boolean {
  if (filter.handoffId !== undefined && change.handoffId !== filter.handoffId) return false;
  if (filter.agentId !== undefined && change.agentId !== filter.agentId) return false;
  if (filter.subjects && !filter.subjects.includes(change.subject)) return false;
  return true;
}

/** The body of the `ready` event: the stream is open and caught up to `seq`. */
export type ReadyEvent = { seq: number };
/** The body of the `reset` event: changes the client missed are gone (pruned, or another database); refetch everything. */
export type ResetEvent = { seq: number; reason: string };

/** How long a browser waits before reconnecting a dropped stream (the SSE `retry:` hint). */
export const RECONNECT_DELAY_MS = 1000;
