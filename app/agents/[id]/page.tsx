import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache, Suspense } from "react";
import { AgentBanners } from "@/components/agents/agent-banners";
import { ArrivalProblem } from "@/components/agents/arrival-problem";
import { StatusBadge } from "@/components/agents/agent-badges";
import { AgentOverview } from "@/components/agents/agent-overview";
import { ContinuityChainView } from "@/components/agents/continuity-chain";
import { EndShiftDialog } from "@/components/agents/end-shift-dialog";
import { shiftDocumentDraft } from "@/components/agents/shift-draft";
import { ShiftHandoffPanel } from "@/components/agents/shift-handoff-panel";
import { ForgetDraft } from "@/components/forms/drafts";
import { LiveUpdates } from "@/components/live/live-updates";
import { GitStaleness } from "@/components/thread/git-staleness";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import { getContinuityChain, SHIFT_DOCUMENT_TEMPLATE, loadShiftDocument, resolveAgentId, type AgentDetail } from "@/lib/agents";
import { shiftGitReport } from "@/lib/agents/shift-git-report";
import { latestChangeSeq } from "@/lib/changes";
import { Invalid, NotFound } from "@/lib/errors";
import { lastCheckpointOf } from "@/lib/formats";
import { visibleBidiControls } from "@/lib/validation";

export const dynamic = "force-dynamic";

type Props = {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ registered?: string; handedOff?: string }>;
};

/** The URL segment as typed; a malformed escape (`%E0%A4%A`) is kept as it is, for resolveAgentId to refuse. */
function decoded(ref: string): string {
  try {
    return decodeURIComponent(ref);
  } catch {
    return ref;
  }
}

/** The agent's integer id from the URL (id, session UUID or 8-hex prefix), or the not-found page. */
async function agentIdFrom(ref: string): Promise<number> {
  try {
    return await resolveAgentId(decoded(ref));
  } catch (error) {
    if (error instanceof NotFound || error instanceof Invalid) notFound();
    throw error;
  }
}

/** The agent's chain around it, read once per request (the tab title and the page both need it). */
const chainOf = cache(async (ref: string) => getContinuityChain({ agentId: await agentIdFrom(ref) }));

/** The tab names the agent: its name and short id. */
export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { agent } = await chainOf((await params).id);
  return { title: `${visibleBidiControls(agent.name)} ${agent.shortId}` };
}

/** The agent's handoff record and document; the document is read from disk while the rest shows. */
async function HandoffSection({ agent, successorTarget }: { agent: AgentDetail; successorTarget: string | null }) {
  const document = agent.handoff ? await loadShiftDocument(agent.handoff.filePath, agent.handoff.id) : null;
  // Whether the delivery arrived (record.deliveryProblem) was computed when the page read it (no timer).
  if (agent.handoff && document) {
    const git = await shiftGitReport(agent.handoff.id, document.status === "ok" ? document.content : null);
    return (
      <div>
        <GitStaleness report={git} subject="shift document" />
        <ShiftHandoffPanel record={agent.handoff} document={document} successorTarget={successorTarget} />
      </div>
    );
  }
  return (
    <section aria-labelledby="handoff-heading" className="rounded-lg border border-dashed border-slate-300 bg-white p-4 text-sm text-slate-700">
      <h2 id="handoff-heading" className="mb-1 text-lg font-semibold text-slate-900">
        Shift handoff
      </h2>
      {agent.status === "active"
        ? "No shift handoff yet. End this agent's shift to hand its work to a successor, or let it hand off through MCP."
        : "This agent ended without a shift handoff."}
    </section>
  );
}

/**
 * The agent is looked up before anything is sent, so an unknown id answers HTTP 404 (a
 * route-level loading.tsx would make Next stream a 200 first); the loading state for the slow
 * part is the Suspense boundary below the check.
 */
export default async function AgentPage({ params, searchParams }: Props) {
  const [{ id }, search] = await Promise.all([params, searchParams]);
  // Read before the chain: a change written while the page renders is then replayed to it.
  const since = await latestChangeSeq();
  const chain = await chainOf(id);
  const agent = chain.agent;
  const checkpoint = agent.status === "active" && agent.project ? await lastCheckpointOf(agent.project) : null;
  const predecessor = chain.predecessors.at(-1);
  const arrival = predecessor?.handoff?.deliveryProblem ? predecessor.handoff : null;
  return (
    <>
      <AgentBanners registered={search.registered === "1"} handedOff={search.handedOff === "1"} successor={chain.successors[0]} />
      <PageHeader
        title={visibleBidiControls(agent.name)}
        description={
          <span className="flex flex-wrap items-center gap-2">
            Agent <code className="font-mono">{agent.shortId}</code> · <span className="font-mono">{agent.personaSlug}</span>
            <StatusBadge status={agent.status} />
          </span>
        }
        actions={
          agent.status === "active" ? (
            <EndShiftDialog agentId={agent.id} name={agent.name} shortId={agent.shortId} template={SHIFT_DOCUMENT_TEMPLATE} tmuxTarget={agent.tmuxTarget} checkpoint={checkpoint} />
          ) : (
            // Its shift is over (handed off here, elsewhere, or ended): a shift document typed for it has no use left.
            <ForgetDraft name={shiftDocumentDraft(agent.id)} />
          )
        }
      />
      <LiveUpdates scope={{ kind: "agents" }} since={since} />
      {predecessor && arrival?.deliveryProblem && <ArrivalProblem predecessor={predecessor} record={arrival} problem={arrival.deliveryProblem} target={agent.tmuxTarget} />}
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
        <div className="flex flex-col gap-6">
          <AgentOverview agent={agent} />
          <ContinuityChainView chain={chain} />
        </div>
        <div className="flex flex-col gap-6">
          <Suspense fallback={<Skeleton label="the shift document" rows={3} />}>
            <HandoffSection agent={agent} successorTarget={chain.successors[0]?.tmuxTarget ?? null} />
          </Suspense>
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
    </>
  );
}
