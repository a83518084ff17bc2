import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import { Suspense } from "react";
import { HistoryFiltersForm } from "@/components/handoffs/history-filters";
import { LiveUpdates } from "@/components/live/live-updates";
import { HistoryList } from "@/components/handoffs/history-list";
import { OpenHandoffForm } from "@/components/handoffs/open-handoff-form";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import { latestChangeSeq } from "@/lib/changes";
import { findHandoffs, findProjects } from "@/lib/handoffs";
import { historyFiltersFrom, historyQuery } from "@/lib/queries";
import { getQueryClient } from "@/lib/query-client";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Handoffs" };

/**
 * No loading.tsx at the root: a root loading boundary streams every page, and a page that must
 * answer 404 (an unknown /handoffs/<id>) would answer 200. The history loads behind its own
 * Suspense boundary instead.
 */
export default function HomePage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  // Read before the history loads: a change written meanwhile is then replayed to the page.
  const since = latestChangeSeq();
  return (
    <>
      <PageHeader
        title="Handoffs"
        description="Threads between chat (decisions) and code (implementation). Unread counts update as agents write."
      />
      <OpenHandoffForm />
      <LiveUpdates scope={{ kind: "history" }} since={since} />
      <Suspense fallback={<Skeleton label="handoffs" rows={8} />}>
        <History searchParams={searchParams} />
      </Suspense>
    </>
  );
}

async function History({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const filters = historyFiltersFrom(await searchParams);
  const queryClient = getQueryClient();
  const [projects] = await Promise.all([
    findProjects(),
    queryClient.prefetchQuery({ ...historyQuery(filters), queryFn: () => findHandoffs(filters) }),
  ]);
  return (
    <>
      <HistoryFiltersForm filters={filters} projects={projects} />
      <HydrationBoundary state={dehydrate(queryClient)}>
        <HistoryList filters={filters} />
      </HydrationBoundary>
    </>
  );
}
