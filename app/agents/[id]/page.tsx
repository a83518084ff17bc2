import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { AgentBanners } from "@/components/agents/agent-banners";
import { StatusBadge } from "@/components/agents/agent-badges";
import { AgentOverview } from "@/components/agents/agent-overview";
import { AutoRefresh } from "@/components/agents/auto-refresh";
import { ContinuityChainView } from "@/components/agents/continuity-chain";
import { EndShiftDialog } from "@/components/agents/end-shift-dialog";
import { HandoffRecordPanel } from "@/components/agents/handoff-record-panel";
import { PageHeader } from "@/components/ui/page-header";
import { getContinuityChain, HANDOFF_DOCUMENT_TEMPLATE, readHandoffDocument, resolveAgentId } from "@/lib/agents";
import { Invalid, NotFound } from "@/lib/errors";

export const dynamic = "force-dynamic";

type Props = {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ registered?: string; handedOff?: string }>;
};

/** The agent's integer id from the URL (id, session UUID or 8-hex prefix), or the not-found page. */
async function agentIdFrom(ref: string): Promise<number> {
  try {
    return await resolveAgentId(decodeURIComponent(ref));
  } catch (error) {
    if (error instanceof NotFound || error instanceof Invalid) notFound();
    throw error;
  }
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  return { title: `Agent ${decodeURIComponent(id).slice(0, 36)}` };
}

export default async function AgentPage({ params, searchParams }: Props) {
  const [{ id }, search] = await Promise.all([params, searchParams]);
  const chain = await getContinuityChain({ agentId: await agentIdFrom(id) });
  const agent = chain.agent;
  const document = agent.handoff ? await readHandoffDocument(agent.handoff.filePath) : null;
  return (
    <>
      <AgentBanners registered={search.registered === "1"} handedOff={search.handedOff === "1"} successor={chain.successors[0]} />
      <PageHeader
        title={agent.name}
        description={
          <span className="flex flex-wrap items-center gap-2">
            Agent <code className="font-mono">{agent.shortId}</code> · <span className="font-mono">{agent.personaSlug}</span>
            <StatusBadge status={agent.status} />
          </span>
        }
        actions={
          agent.status === "active" ? (
            <EndShiftDialog agentId={agent.id} shortId={agent.shortId} template={HANDOFF_DOCUMENT_TEMPLATE} tmuxTarget={agent.tmuxTarget} />
          ) : null
        }
      />
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
        <div className="flex flex-col gap-6">
          <AgentOverview agent={agent} />
          <ContinuityChainView chain={chain} />
        </div>
        <div className="flex flex-col gap-6">
          {agent.handoff && document ? (
            <HandoffRecordPanel record={agent.handoff} document={document} />
          ) : (
            <section aria-labelledby="handoff-heading" className="rounded-lg border border-dashed border-slate-300 bg-white p-4 text-sm text-slate-700">
              <h2 id="handoff-heading" className="mb-1 text-lg font-semibold text-slate-900">
                Handoff
              </h2>
              {agent.status === "active"
                ? "No handoff yet. End this agent's shift to hand its work to a successor, or let it hand off through MCP."
                : "This agent ended without a handoff."}
            </section>
          )}
          <p className="text-sm text-slate-600">
            <Link href="/agents" className="text-indigo-700 underline">
              All agents
            </Link>{" "}
            ·{" "}
            <Link href="/" className="text-indigo-700 underline">
              Handoff threads
            </Link>
          </p>
        </div>
      </div>
      <AutoRefresh />
    </>
  );
}
