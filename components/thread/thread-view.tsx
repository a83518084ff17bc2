"use client";

import { useQuery } from "@tanstack/react-query";
import { RelativeTime } from "@/components/ui/relative-time";
import type { ClientSide } from "@/lib/handoffs/schemas";
import { threadQuery, type ThreadState } from "@/lib/queries";
import { cursorOf } from "@/lib/handoffs/views";
import { CloseDialog } from "./close-dialog";
import { Composer } from "./composer";
import { CursorActions } from "./cursor-actions";
import { EntryList } from "./entry-list";
import { LoadEarlier } from "./load-earlier";
import { ThreadHeader } from "./thread-header";
import { ViewingAsSwitch } from "./viewing-as-switch";

/**
 * A live thread: the latest page of entries, more on request, and, when the page's change
 * stream (components/live) says this thread changed, a refetch of only what is new.
 */
export function ThreadView({
  handoffId,
  viewingAs,
  sourceFormat,
  initial,
}: {
  handoffId: string;
  viewingAs: ClientSide;
  sourceFormat: string | null;
  /** The server's latest page; used only while nothing is cached, so a refresh of the page never drops earlier entries loaded here. */
  initial: ThreadState;
}) {
  const { data, error } = useQuery({ ...threadQuery(handoffId, viewingAs), initialData: initial });
  const { handoff, entries, newCount, entryCount, earlierCount } = data;
  const active = handoff.status === "active";
  return (
    <div>
      <ThreadHeader handoff={handoff} sourceFormat={sourceFormat} />
      {error && (
        <p role="status" className="mb-3 rounded bg-amber-50 px-3 py-2 text-sm text-amber-900">
          Live updates paused: {error.message}. Showing the last copy.
        </p>
      )}
      <div className="mb-4 flex flex-col gap-3 border-y border-slate-200 py-3 lg:flex-row lg:items-start lg:justify-between">
        <ViewingAsSwitch handoffId={handoff.id} viewingAs={viewingAs} newCount={newCount} />
        <div className="flex flex-wrap items-start gap-2">
          <CursorActions handoffId={handoff.id} chatCursor={handoff.chatLastSeen} codeCursor={handoff.codeLastSeen} />
          {active && <CloseDialog handoffId={handoff.id} entryCount={entryCount} />}
        </div>
      </div>
      {!active && (
        <div role="status" className="mb-4 rounded-lg border border-slate-300 bg-slate-100 p-4 text-sm text-slate-800">
          <p className="font-semibold">This handoff is completed.</p>
          <p>
            It was closed {handoff.closedAt ? <RelativeTime iso={handoff.closedAt} /> : "earlier"}. Its entries were wiped when
            it closed; the handoff itself stays here for reference.
          </p>
        </div>
      )}
      {active && entryCount === 0 && <p className="text-sm text-slate-600">No entries yet.</p>}
      {active && earlierCount > 0 && <LoadEarlier handoffId={handoff.id} viewingAs={viewingAs} earlierCount={earlierCount} />}
      <EntryList entries={entries} cursor={cursorOf(handoff, viewingAs)} />
      {active && <Composer handoffId={handoff.id} viewingAs={viewingAs} />}
    </div>
  );
}
