import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache, Suspense } from "react";
import { SourceMenu, ThreadLinks } from "@/components/formats/source-menu";
import { LiveUpdates } from "@/components/live/live-updates";
import { CreatedBanner } from "@/components/thread/created-banner";
import { GitStaleness } from "@/components/thread/git-staleness";
import { KeptBundle } from "@/components/thread/kept-bundle";
import { ThreadView } from "@/components/thread/thread-view";
import { currentCaller, defaultSideOf } from "@/lib/caller";
import { latestChangeSeq } from "@/lib/changes";
import { readBundle } from "@/lib/dashboard/read-kept-bundle";
import { Invalid, NotFound } from "@/lib/errors";
import { getProvenance } from "@/lib/formats/get-provenance";
import {
  END_OF_THREAD,
  getHandoff,
  gitReportOf,
  openingEntries,
  HANDOFF_ID_PATTERN,
  THREAD_PAGE_BUDGET_BYTES,
  THREAD_PAGE_SIZE,
  type EntryView,
  type HandoffThread,
} from "@/lib/handoffs";
import { cursorOf } from "@/lib/handoffs/views";
import { threadStateOf } from "@/lib/queries";
import { visibleBidiControls } from "@/lib/validation";

export const dynamic = "force-dynamic";

type Props = {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ as?: string; created?: string; redacted?: string; entry?: string }>;
};

/** The side the page is read as: `?as=`, else the caller's default side (one rule with every door). */
const sideOf = (as: string | undefined) => (as === "code" || as === "chat" ? as : defaultSideOf(currentCaller()));

/** `?entry=12`: the entry a link opens the thread at (search results, the palette, "Needs you now"). */
const entryParam = (entry: string | undefined) => (entry && /^\d{1,9}$/.test(entry) ? Number(entry) : null);

/**
 * What the page opens with, or the not-found page for an ID that is malformed or unknown: the
 * latest page of the thread, unless the entry the reader needs (the one the link names, else
 * the first new to this side) lies before it; then the run from that entry on. When the run does
 * not start at #1, the thread's opening entry too, so its context is always on screen. Read once
 * per request: the tab title and the page both ask.
 */
const loadThreadPage = cache(async (id: string, asClient: "chat" | "code", entry: number | null): Promise<{ run: HandoffThread; opening: EntryView[] }> => {
  if (!HANDOFF_ID_PATTERN.test(id)) notFound();
  const page = { id, asClient, limit: THREAD_PAGE_SIZE, maxBytes: THREAD_PAGE_BUDGET_BYTES };
  try {
    let run = await getHandoff({ ...page, beforeSeq: END_OF_THREAD });
    const start = run.entries[0];
    const cursor = cursorOf(run.handoff, asClient);
    const newBeforeRun = run.newCount > run.entries.filter((held) => held.seq > cursor).length;
    if (start && entry !== null && entry < start.number) run = await getHandoff({ ...page, fromNumber: entry }).catch((error: unknown) => (error instanceof Invalid ? run : Promise.reject(error)));
    else if (start && entry === null && newBeforeRun) run = await getHandoff({ ...page, afterSeq: cursor });
    const opening = run.entries[0] && run.entries[0].number > 1 ? await openingEntries({ id }) : [];
    return { run, opening };
  } catch (error) {
    if (error instanceof NotFound) notFound();
    throw error;
  }
});

/** The tab names the thread. */
export async function generateMetadata({ params, searchParams }: Props): Promise<Metadata> {
  const [{ id }, search] = await Promise.all([params, searchParams]);
  return { title: visibleBidiControls((await loadThreadPage(id, sideOf(search.as), entryParam(search.entry))).run.handoff.title) };
}

/** Where the thread stands in git: runs git on this machine, so it streams in after the entries. */
async function ThreadGit({ thread }: { thread: HandoffThread }) {
  return <GitStaleness report={await gitReportOf(thread)} />;
}

/**
 * No loading.tsx above this page (here, in app/handoffs or at the root): the thread's latest page
 * is loaded before anything streams, so an unknown ID answers 404, not a streamed 200. Git (the
 * slow part) streams in behind a Suspense boundary below that check.
 */
export default async function ThreadPage({ params, searchParams }: Props) {
  const [{ id }, search] = await Promise.all([params, searchParams]);
  const viewingAs = sideOf(search.as);
  // Read before the thread: a change written while the page renders is then replayed to it.
  const since = await latestChangeSeq();
  const { run: thread, opening } = await loadThreadPage(id, viewingAs, entryParam(search.entry));
  const provenance = await getProvenance({ id });
  const kept = provenance.keptBundle ? await readBundle(provenance.keptBundle.id) : null;
  return (
    <>
      {search.created === "1" && <CreatedBanner handoffId={id} redacted={Number(search.redacted) || 0} />}
      <LiveUpdates scope={{ kind: "thread", handoffId: id }} since={since} />
      <ThreadView
        handoffId={id}
        viewingAs={viewingAs}
        openedAt={entryParam(search.entry)}
        continuesFrom={provenance.parent?.id ?? null}
        sourceFormat={provenance.source?.format ?? null}
        initial={threadStateOf(thread, opening)}
        menu={<SourceMenu handoffId={id} provenance={provenance} />}
        links={<ThreadLinks provenance={provenance} />}
        notices={
          <Suspense fallback={null}>
            <ThreadGit thread={thread} />
          </Suspense>
        }
        closed={kept && <KeptBundle reading={kept} handoff={thread.handoff} />}
      />
    </>
  );
}
