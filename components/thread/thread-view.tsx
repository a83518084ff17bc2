"use client";

import { useQuery } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useRef, type ReactNode } from "react";
import { RelativeTime } from "@/components/ui/relative-time";
import type { ClientSide } from "@/lib/handoffs/schemas";
import { threadQuery, type ThreadState } from "@/lib/queries";
import { cursorOf } from "@/lib/handoffs/views";
import { CloseDialog } from "./close-dialog";
import { Composer } from "./composer";
import { CursorActions } from "./cursor-actions";
import { EntryList } from "./entry-list";
import { JumpControls } from "./jump-controls";
import { CarriedDraft, KeptDraft } from "./kept-draft";
import { answersIndex } from "./entry-list";
import { LoadEarlier, LoadLater } from "./load-earlier";
import { ThreadHeader } from "./thread-header";
import { ViewingAsSwitch } from "./viewing-as-switch";

function showEntry(entry: HTMLElement): void {
  entry.scrollIntoView({ block: "start" });
  entry.focus({ preventScroll: true });
}

/**
 * Opens the page where the work is: at the entry the address names (`#entry-12`, else
 * `?entry=12`), else at the first entry new to the side being viewed; once, when the page opens,
 * for live updates never move the reader. A named entry also takes focus, so `j`/`k` go on from
 * it. An address naming an entry this page does not hold (a link pasted into a long thread, or an
 * "answers #12" followed to a folded entry) opens the page from that entry.
 */
function useOpenAt(firstNewNumber: number | null, lastNumber: number, openedAt: number | null) {
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  const namedEntry = () => {
    const named = /^#entry-(\d{1,9})$/.exec(window.location.hash);
    if (!named) return false;
    const number = Number(named[1]);
    const target = document.getElementById(`entry-${number}`);
    if (target) showEntry(target);
    else if (number >= 1 && number <= lastNumber && search.get("entry") !== String(number)) {
      const params = new URLSearchParams(search);
      params.set("entry", String(number));
      router.replace(`${pathname}?${params}#entry-${number}`);
    }
    return true;
  };
  // The `?entry=` the page last opened at: an address naming a folded entry loads the page again
  // from it (namedEntry's replace), and that entry then takes focus as one the page held would.
  const opened = useRef<number | null | undefined>(undefined);
  useEffect(() => {
    if (opened.current !== openedAt) {
      opened.current = openedAt;
      if (!namedEntry()) {
        const openedEntry = openedAt === null ? null : document.getElementById(`entry-${openedAt}`);
        if (openedEntry) showEntry(openedEntry);
        else if (firstNewNumber !== null) document.getElementById(`entry-${firstNewNumber}`)?.scrollIntoView({ block: "start" });
      }
    }
    window.addEventListener("hashchange", namedEntry);
    return () => window.removeEventListener("hashchange", namedEntry);
  });
}

/**
 * The server's slots (the source menu, the kept bundle and its Continue, the links) were rendered
 * for the thread as it was when the page loaded. When the live copy says it closed since (another
 * tab, the CLI, an agent), the page renders them again; the new render's status then matches.
 */
function useSlotsFollowStatus(liveStatus: string, renderedStatus: string): void {
  const router = useRouter();
  useEffect(() => {
    if (liveStatus !== renderedStatus) router.refresh();
  }, [liveStatus, renderedStatus, router]);
}

/**
 * A live thread: its opening entry, the entries folded after it ("Load earlier" unfolds them a
 * page at a time), the run the reader needs (the latest page, or from the first new entry), more
 * on request, and, when the page's change
 * stream (components/live) says this thread changed, a refetch of only what is new. The server
 * renders the parts that are not live into slots: `menu` (source and export), `links` (the
 * threads it continues and was continued in), `notices` (where it stands in git) and `closed`
 * (the kept bundle of a completed thread).
 */
export function ThreadView({
  handoffId,
  viewingAs,
  openedAt,
  continuesFrom,
  sourceFormat,
  initial,
  menu,
  links,
  notices,
  closed,
}: {
  handoffId: string;
  viewingAs: ClientSide;
  /** The entry the address opened the thread at (`?entry=`), or null. */
  openedAt: number | null;
  /** The thread this one continues, whose unposted reply it offers to take (CarriedDraft), or null. */
  continuesFrom: string | null;
  sourceFormat: string | null;
  /** The server's latest page; used only while nothing is cached, so a refresh of the page never drops earlier entries loaded here. */
  initial: ThreadState;
  menu?: ReactNode;
  links?: ReactNode;
  notices?: ReactNode;
  closed?: ReactNode;
}) {
  const { data, error } = useQuery({ ...threadQuery(handoffId, viewingAs, openedAt), initialData: initial });
  const { handoff, opening, entries, newCount, entryCount, earlierCount, laterCount } = data;
  const active = handoff.status === "active";
  useSlotsFollowStatus(handoff.status, initial.handoff.status);
  const cursor = cursorOf(handoff, viewingAs);
  const firstNew = entries.find((entry) => entry.seq > cursor) ?? null;
  const lastNumber = entries.at(-1)?.number ?? opening.at(-1)?.number ?? 0;
  useOpenAt(firstNew?.number ?? null, lastNumber + laterCount, openedAt);
  const answeredBy = answersIndex([...opening, ...entries]);
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
        <ViewingAsSwitch handoffId={handoff.id} viewingAs={viewingAs} newCount={newCount} firstNewNumber={firstNew?.number ?? null} />
        {/* A completed thread has no entries left to read. */}
        {active && <CursorActions handoffId={handoff.id} />}
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
      {!active && <KeptDraft handoffId={handoff.id} canContinue={Boolean(closed)} />}
      {!active && closed}
      {active && entryCount === 0 && <p className="text-sm text-slate-600">No entries yet.</p>}
      {opening.length > 0 && (
        <div className="mb-3">
          <EntryList label="Opening entry" entries={opening} cursor={cursor} answeredBy={answeredBy} canReply={active} />
        </div>
      )}
      {active && earlierCount > 0 && <LoadEarlier handoffId={handoff.id} viewingAs={viewingAs} openedAt={openedAt} earlierCount={earlierCount} firstFolded={(opening.at(-1)?.number ?? 0) + 1} />}
      <EntryList entries={entries} cursor={cursor} answeredBy={answeredBy} canReply={active} />
      {active && laterCount > 0 && <LoadLater handoffId={handoff.id} viewingAs={viewingAs} openedAt={openedAt} laterCount={laterCount} firstLater={lastNumber + 1} />}
      {active && entries.length > 0 && <JumpControls firstNewNumber={firstNew?.number ?? null} latestNumber={lastNumber} newCount={newCount} />}
      {active && continuesFrom && <CarriedDraft handoffId={handoff.id} continuesFrom={continuesFrom} />}
      {active && <Composer handoffId={handoff.id} viewingAs={viewingAs} />}
      {active && (
        <section aria-labelledby="finish-heading" className="mt-10 flex flex-col gap-2 border-t border-slate-200 pt-4 sm:flex-row sm:items-center sm:justify-between">
          <div>
            <h2 id="finish-heading" className="text-sm font-semibold text-slate-900">
              Done with this thread?
            </h2>
            <p className="text-sm text-slate-600">Closing deletes its entries; a context bundle of them is kept unless you say otherwise.</p>
          </div>
          <CloseDialog handoffId={handoff.id} title={handoff.title} entryCount={entryCount} />
        </section>
      )}
    </div>
  );
}
