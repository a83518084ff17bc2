"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, type ReactNode } from "react";
import { RelativeTime } from "@/components/ui/relative-time";
import type { ClientSide } from "@/lib/handoffs/schemas";
import { threadQuery, type ThreadState } from "@/lib/queries";
import { cursorOf } from "@/lib/handoffs/views";
import { CloseDialog } from "./close-dialog";
import { Composer } from "./composer";
import { CursorActions } from "./cursor-actions";
import { EntryList } from "./entry-list";
import { JumpControls } from "./jump-controls";
import { LoadEarlier } from "./load-earlier";
import { ThreadHeader } from "./thread-header";
import { ViewingAsSwitch } from "./viewing-as-switch";

/**
 * Opens the page where the work is: at the first entry new to the side being viewed (unless the
 * address names an entry). Once, when the page opens; live updates never move the reader.
 */
function useOpenAtFirstNew(firstNewSeq: number | null) {
  useEffect(() => {
    if (firstNewSeq === null || window.location.hash) return;
    document.getElementById(`entry-${firstNewSeq}`)?.scrollIntoView({ block: "start" });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only where the page opened: later entries must not move the reader.
  }, []);
}

/**
 * A live thread: the latest page of entries, more on request, and, when the page's change
 * stream (components/live) says this thread changed, a refetch of only what is new. The server
 * renders the parts that are not live into slots: `menu` (source and export), `links` (the
 * threads it continues and was continued in), `notices` (where it stands in git) and `closed`
 * (the kept bundle of a completed thread).
 */
export function ThreadView({
  handoffId,
  viewingAs,
  sourceFormat,
  initial,
  menu,
  links,
  notices,
  closed,
}: {
  handoffId: string;
  viewingAs: ClientSide;
  sourceFormat: string | null;
  /** The server's latest page; used only while nothing is cached, so a refresh of the page never drops earlier entries loaded here. */
  initial: ThreadState;
  menu?: ReactNode;
  links?: ReactNode;
  notices?: ReactNode;
  closed?: ReactNode;
}) {
  const { data, error } = useQuery({ ...threadQuery(handoffId, viewingAs), initialData: initial });
  const { handoff, entries, newCount, entryCount, earlierCount } = data;
  const active = handoff.status === "active";
  const cursor = cursorOf(handoff, viewingAs);
  const firstNew = entries.find((entry) => entry.seq > cursor) ?? null;
  useOpenAtFirstNew(firstNew?.seq ?? null);
  return (
    <div>
      <ThreadHeader handoff={handoff} sourceFormat={sourceFormat} menu={menu} />
      {links}
      {notices}
      {error && (
        <p role="status" className="mb-3 rounded bg-amber-50 px-3 py-2 text-sm text-amber-900">
          Live updates paused: {error.message}. Showing the last copy.
        </p>
      )}
      <div className="mb-4 flex flex-col gap-3 border-y border-slate-200 py-3 lg:flex-row lg:items-start lg:justify-between">
        <ViewingAsSwitch handoffId={handoff.id} viewingAs={viewingAs} newCount={newCount} firstNewSeq={firstNew?.seq ?? null} />
        {/* A completed thread has no entries left to read. */}
        {active && <CursorActions handoffId={handoff.id} chatCursor={handoff.chatLastSeen} codeCursor={handoff.codeLastSeen} />}
      </div>
      {!active && (
        <div role="status" className="mb-4 rounded-lg border border-slate-300 bg-slate-100 p-4 text-sm text-slate-800">
          <p className="font-semibold">This handoff is completed.</p>
          <p>
            It was closed {handoff.closedAt ? <RelativeTime iso={handoff.closedAt} /> : "earlier"}. Its entries were wiped when
            it closed, which is why it lists none; the handoff itself stays here for reference, with its kept bundle if one was kept.
          </p>
        </div>
      )}
      {!active && closed}
      {active && entryCount === 0 && <p className="text-sm text-slate-600">No entries yet.</p>}
      {active && earlierCount > 0 && <LoadEarlier handoffId={handoff.id} viewingAs={viewingAs} earlierCount={earlierCount} />}
      <EntryList entries={entries} cursor={cursor} firstNumber={earlierCount + 1} />
      {active && entries.length > 0 && <JumpControls firstNewSeq={firstNew?.seq ?? null} latestSeq={entries.at(-1)!.seq} newCount={newCount} />}
      {active && <Composer handoffId={handoff.id} viewingAs={viewingAs} />}
      {active && (
        <section aria-labelledby="finish-heading" className="mt-10 flex flex-col gap-2 border-t border-slate-200 pt-4 sm:flex-row sm:items-center sm:justify-between">
          <div>
            <h2 id="finish-heading" className="text-sm font-semibold text-slate-900">
              Done with this thread?
            </h2>
            <p className="text-sm text-slate-600">Closing deletes its entries; a context bundle of them is kept unless you say otherwise.</p>
          </div>
          <CloseDialog handoffId={handoff.id} entryCount={entryCount} />
        </section>
      )}
    </div>
  );
}
