import type { Entry, Handoff } from "../generated/prisma/client";
import type { ClientSide, EntryType, HandoffStatus } from "./schemas";

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
  seq: number;
  handoffId: string;
  fromClient: ClientSide;
  type: EntryType;
  content: string;
  createdAt: string;
};

export function toHandoffView(row: Handoff): HandoffView {
  return {
    id: row.id,
    title: row.title,
    project: row.project,
    chatLastSeen: row.chatLastSeen,
    codeLastSeen: row.codeLastSeen,
    status: row.status as HandoffStatus,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    closedAt: row.closedAt?.toISOString() ?? null,
  };
}

export function toEntryView(row: Entry): EntryView {
  return {
    seq: row.seq,
    handoffId: row.handoffId,
    fromClient: row.fromClient as ClientSide,
    type: row.type as EntryType,
    content: row.content,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The cursor column of a side. */
export function cursorOf(handoff: Pick<HandoffView, "chatLastSeen" | "codeLastSeen">, side: ClientSide): number {
  return side === "chat" ? handoff.chatLastSeen : handoff.codeLastSeen;
}
