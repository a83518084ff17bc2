import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { Suspense } from "react";
import { ThreadFormatsPanel } from "@/components/formats/thread-formats-panel";
import { LiveUpdates } from "@/components/live/live-updates";
import { CreatedBanner } from "@/components/thread/created-banner";
import { GitStaleness } from "@/components/thread/git-staleness";
import { ThreadView } from "@/components/thread/thread-view";
import { Skeleton } from "@/components/ui/skeleton";
import { latestChangeSeq } from "@/lib/changes";
import { NotFound } from "@/lib/errors";
import { getProvenance } from "@/lib/formats/get-provenance";
import {
  END_OF_THREAD,
  getHandoff,
  gitReportOf,
  HANDOFF_ID_PATTERN,
  THREAD_PAGE_BUDGET_BYTES,
  THREAD_PAGE_SIZE,
  type HandoffThread,
} from "@/lib/handoffs";
import { threadStateOf } from "@/lib/queries";

export const dynamic = "force-dynamic";

type Props = {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ as?: string; created?: string; redacted?: string }>;
};

/** The latest page of the thread, or the not-found page for an ID that is malformed or unknown. */
async function loadLatestPage(id: string, asClient: "chat" | "code"): Promise<HandoffThread> {
  if (!HANDOFF_ID_PATTERN.test(id)) notFound();
  try {
    return await getHandoff({ id, asClient, beforeSeq: END_OF_THREAD, limit: THREAD_PAGE_SIZE, maxBytes: THREAD_PAGE_BUDGET_BYTES });
  } catch (error) {
    if (error instanceof NotFound) notFound();
    throw error;
  }
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  return { title: id };
}

async function ThreadSections({ id, viewingAs, thread }: { id: string; viewingAs: "chat" | "code"; thread: HandoffThread }) {
  const [provenance, git] = await Promise.all([getProvenance({ id }), gitReportOf(thread)]);
  return (
    <>
      <GitStaleness report={git} />
      <ThreadFormatsPanel handoffId={id} provenance={provenance} />
      <ThreadView
        handoffId={id}
        viewingAs={viewingAs}
        sourceFormat={provenance.source?.format ?? null}
        initial={threadStateOf(thread)}
      />
    </>
  );
}

/**
 * No loading.tsx above this page (here, in app/handoffs or at the root): the thread's latest page
 * is loaded before anything streams, so an unknown ID answers 404, not a streamed 200. The rest
 * streams in behind a Suspense boundary below that check.
 */
export default async function ThreadPage({ params, searchParams }: Props) {
  const [{ id }, search] = await Promise.all([params, searchParams]);
  const viewingAs = search.as === "code" ? "code" : "chat";
  // Read before the thread: a change written while the page renders is then replayed to it.
  const since = latestChangeSeq();
  const thread = await loadLatestPage(id, viewingAs);
  return (
    <>
      {search.created === "1" && <CreatedBanner handoffId={id} redacted={Number(search.redacted) || 0} />}
      <LiveUpdates scope={{ kind: "thread", handoffId: id }} since={since} />
      <Suspense fallback={<Skeleton label="the handoff" rows={5} />}>
        <ThreadSections id={id} viewingAs={viewingAs} thread={thread} />
      </Suspense>
    </>
  );
}
