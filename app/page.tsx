import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { Suspense } from "react";
import { ConnectGuide } from "@/components/connect/connect-guide";
import { AttentionView } from "@/components/dashboard/attention-view";
import { WhenNotSearching } from "@/components/dashboard/when-not-searching";
import { HistoryFiltersForm } from "@/components/handoffs/history-filters";
import { LiveUpdates } from "@/components/live/live-updates";
import { HistoryList } from "@/components/handoffs/history-list";
import { OpenHandoffForm } from "@/components/handoffs/open-handoff-form";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import { latestChangeSeq } from "@/lib/changes";
import { connectSettings } from "@/lib/dashboard/connect-settings";
import { isFirstRun } from "@/lib/dashboard/is-first-run";
import { findHandoffs, findProjects } from "@/lib/handoffs";
import { historyFiltersFrom, historyQuery } from "@/lib/queries";
import { getQueryClient } from "@/lib/query-client";
import { attentionOfRequest } from "./attention";

export const dynamic = "force-dynamic";
/** The layout's title template applies to nested pages only: the desk, in the root segment, writes its whole title. */
export const metadata: Metadata = { title: { absolute: "Handoffs · Baton" } };

/** The empty desk: how to connect Claude, with this server's address filled in. */
async function FirstRun() {
  const settings = connectSettings((await headers()).get("host"));
  return (
    <section aria-labelledby="first-run-heading" data-testid="first-run" className="mb-8 flex flex-col gap-3">
      <div>
        <h2 id="first-run-heading" className="text-base font-semibold text-slate-900">
          Connect Claude to start
        </h2>
        <p className="mt-1 text-sm text-slate-700">
          Nothing here yet. Connect a Claude client below; its handoffs and agents then appear on this page. Or{" "}
          <Link href="/handoffs/new" className="text-indigo-700 underline">
            start a handoff by hand
          </Link>
          . The same steps stay under{" "}
          <Link href="/connect" className="text-indigo-700 underline">
            Connect
          </Link>
          .
        </p>
      </div>
      <ConnectGuide settings={settings} heading="h3" foldOthers />
    </section>
  );
}

async function Attention() {
  const attention = await attentionOfRequest();
  return attention ? <AttentionView attention={attention} /> : null;
}

/**
 * No loading.tsx at the root: a root loading boundary streams every page, and a page that must
 * answer 404 (an unknown /handoffs/<id>) would answer 200. The history loads behind its own
 * Suspense boundary instead.
 */
export default async function HomePage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  // Read before the history loads: a change written meanwhile is then replayed to the page.
  const since = await latestChangeSeq();
  return (
    <>
      <PageHeader title="Handoffs" description="What needs you first, then every thread between chat (decisions) and code (implementation)." />
      <LiveUpdates scope={{ kind: "desk" }} since={since} />
      {/* First on the page at every size: typing replaces what is below it with results. */}
      <HistoryFiltersForm projects={await findProjects()} />
      <WhenNotSearching>
        {(await isFirstRun()) ? (
          <FirstRun />
        ) : (
          <Suspense fallback={<Skeleton label="what needs you" rows={2} />}>
            <Attention />
          </Suspense>
        )}
        <OpenHandoffForm />
      </WhenNotSearching>
      <Suspense fallback={<Skeleton label="handoffs" rows={8} />}>
        <History searchParams={searchParams} />
      </Suspense>
    </>
  );
}

async function History({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const filters = historyFiltersFrom(await searchParams);
  const queryClient = getQueryClient();
  await queryClient.prefetchQuery({ ...historyQuery(filters), queryFn: () => findHandoffs(filters) });
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <HistoryList />
    </HydrationBoundary>
  );
}
