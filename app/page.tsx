import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import { HistoryFiltersForm } from "@/components/handoffs/history-filters";
import { HistoryList } from "@/components/handoffs/history-list";
import { OpenHandoffForm } from "@/components/handoffs/open-handoff-form";
import { PageHeader } from "@/components/ui/page-header";
import { findHandoffs, findProjects } from "@/lib/handoffs";
import { historyFiltersFrom, historyQuery } from "@/lib/queries";
import { makeServerQueryClient } from "@/lib/query-client";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Handoffs" };

export default async function HomePage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const filters = historyFiltersFrom(await searchParams);
  const queryClient = makeServerQueryClient();
  const [projects] = await Promise.all([
    findProjects(),
    queryClient.prefetchQuery({ ...historyQuery(filters), queryFn: () => findHandoffs(filters) }),
  ]);
  return (
    <>
      <PageHeader
        title="Handoffs"
        description="Threads between chat (decisions) and code (implementation). Unread counts update as agents write."
      />
      <OpenHandoffForm />
      <HistoryFiltersForm filters={filters} projects={projects} />
      <HydrationBoundary state={dehydrate(queryClient)}>
        <HistoryList filters={filters} />
      </HydrationBoundary>
    </>
  );
}
