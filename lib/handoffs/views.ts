import type { ClientSide, EntryType, HandoffStatus } from "./schemas";
import { isoOf } from "../iso-date";

/** A handoff as every door shows it: plain JSON, dates as ISO-8601 strings. */
export type HandoffView = {
  id: string;
  title: string;
  project: string | null;
  chatLastSeen: number;
  codeLastSeen: number;
  status: HandoffStatus;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
};

export type EntryView = {
  /** Global and internal to cursors (`after_seq`, `*_last_seen`). */
  seq: number;
  /** Its number within the thread (#1 is the first): what people and models see, quote and link to. */
  number: number;
  /** The number of the question (in the same thread) this entry answers, or null. */
  answers: number | null;
  handoffId: string;
  fromClient: ClientSide;
  type: EntryType;
  content: string;
  createdAt: string;
};

/** A `handoffs` row as the database returns it, on either engine (lib/handoffs/store.ts selects these columns). */
export type HandoffRow = {
  id: string;
  title: string;
  project: string | null;
  chat_last_seen: number;
  code_last_seen: number;
  status: string;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
};

/** A `handoff_entries` row as the database returns it. */
export type EntryRow = {
  seq: number;
  handoff_id: string;
  from_client: string;
  type: string;
  content: string;
  created_at: string;
  number: number;
  answers: number | null;
};

export function toHandoffView(row: HandoffRow): HandoffView {
  return {
    id: row.id,
    title: row.title,
    project: row.project,
    chatLastSeen: row.chat_last_seen,
    codeLastSeen: row.code_last_seen,
    status: row.status as HandoffStatus,
    createdAt: isoOf(row.created_at),
    updatedAt: isoOf(row.updated_at),
    closedAt: row.closed_at === null ? null : isoOf(row.closed_at),
  };
}

export function toEntryView(row: EntryRow): EntryView {
  return {
    seq: row.seq,
    number: row.number,
    answers: row.answers,
    handoffId: row.handoff_id,
    fromClient: row.from_client as ClientSide,
    type: row.type as EntryType,
    content: row.content,
    createdAt: isoOf(row.created_at),
  };
}

/** The cursor column of a side. */
export function cursorOf(handoff: Pick<HandoffView, "chatLastSeen" | "codeLastSeen">, side: ClientSide): number {
  return side === "chat" ? handoff.chatLastSeen : handoff.codeLastSeen;
}
