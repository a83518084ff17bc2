import type { Metadata } from "next";
import Link from "next/link";
import { AgentFiltersForm } from "@/components/agents/agent-filters";
import { AgentList } from "@/components/agents/agent-list";
import { AutoRefresh } from "@/components/agents/auto-refresh";
import { buttonClass } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/page-header";
import { agentFiltersFrom, findAgentFacets, findAgents } from "@/lib/agents";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Agents" };

export default async function AgentsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const filters = agentFiltersFrom(await searchParams);
  const [page, facets] = await Promise.all([findAgents(filters), findAgentFacets()]);
  return (
    <>
      <PageHeader
        title="Agents"
        description="Every agent, its continuity chain and its handoff. Active agents first."
        actions={
          <Link href="/agents/new" className={buttonClass("primary")}>
            Register agent
          </Link>
        }
      />
      <AgentFiltersForm filters={filters} personas={facets.personas} projects={facets.projects} />
      <AgentList page={page} filters={filters} />
      <AutoRefresh />
    </>
  );
}
