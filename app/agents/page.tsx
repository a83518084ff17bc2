import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { AgentFiltersForm } from "@/components/agents/agent-filters";
import { AgentList } from "@/components/agents/agent-list";
import { buttonClass } from "@/components/ui/button";
import { LiveUpdates } from "@/components/live/live-updates";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import { agentFiltersFrom, findAgentFacets } from "@/lib/agents";
import { latestChangeSeq } from "@/lib/changes";
import { findAgentChains } from "@/lib/dashboard/find-agent-chains";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Agents" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/**
 * No loading.tsx for /agents: it would stream /agents/<id> too, and an unknown agent would
 * answer 200 instead of 404. The list loads behind its own Suspense boundary instead.
 */
export default async function AgentsPage({ searchParams }: { searchParams: SearchParams }) {
  // Read before the list loads: a change written meanwhile is then replayed to the page.
  const since = await latestChangeSeq();
  return (
    <>
      <PageHeader
        title="Agents"
        description="Every agent by continuity chain: the latest of each first, its predecessors folded under it. Active chains first."
        actions={
          <Link href="/agents/new" className={buttonClass("primary")}>
            Register agent
          </Link>
        }
      />
      <LiveUpdates scope={{ kind: "agents" }} since={since} />
      <Suspense fallback={<Skeleton label="agents" rows={6} />}>
        <Agents searchParams={searchParams} />
      </Suspense>
    </>
  );
}

async function Agents({ searchParams }: { searchParams: SearchParams }) {
  const filters = agentFiltersFrom(await searchParams);
  const [page, facets] = await Promise.all([findAgentChains(filters), findAgentFacets()]);
  return (
    <>
      <AgentFiltersForm filters={filters} personas={facets.personas} projects={facets.projects} />
      <AgentList page={page} filters={filters} />
    </>
  );
}
