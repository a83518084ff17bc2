import Link from "next/link";
import { RelativeTime } from "@/components/ui/relative-time";
import { agentSearch, type AgentFilters } from "@/lib/agents/agent-filters";
import type { AgentChain, AgentChainPage, ListedAgent } from "@/lib/dashboard/find-agent-chains";
import { ContextMeter, ReasonBadge, StatusBadge } from "./agent-badges";
import { DeliveryFlags } from "./delivery-flags";
import { visibleBidiControls } from "@/lib/validation";

function AgentFacts({ agent }: { agent: ListedAgent }) {
  return (
    <dl className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-700">
      <div className="flex gap-1">
        <dt className="text-slate-600">Persona</dt>
        <dd className="font-mono">{agent.personaSlug}</dd>
      </div>
      {agent.project && (
        <div className="flex min-w-0 gap-1">
          <dt className="text-slate-600">Project</dt>
          <dd className="min-w-0 font-mono wrap-anywhere">{agent.project}</dd>
        </div>
      )}
      <div className="flex gap-1">
        <dt className="text-slate-600">Started</dt>
        <dd>
          <RelativeTime iso={agent.startedAt} />
        </dd>
      </div>
      <div>
        <dt className="sr-only">Context</dt>
        <dd>
          <ContextMeter percent={agent.contextPercent} />
        </dd>
      </div>
    </dl>
  );
}

function AgentLine({ agent }: { agent: ListedAgent }) {
  return (
    <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
      <Link href={`/agents/${agent.id}`} className="min-w-0 break-words font-semibold text-indigo-700 hover:underline">
        {visibleBidiControls(agent.name)}
      </Link>
      <code className="font-mono text-xs text-slate-600">{agent.shortId}</code>
      <StatusBadge status={agent.status} />
      {agent.handoff && <ReasonBadge reason={agent.handoff.reason} />}
      <DeliveryFlags own={agent.handoff?.deliveryProblem ?? null} arrival={agent.arrivalProblem} />
    </div>
  );
}

function ChainItem({ chain }: { chain: AgentChain }) {
  const { latest, predecessors, length } = chain;
  const hidden = length - 1 - predecessors.length;
  return (
    <li data-agent-id={latest.id} className="rounded-lg border border-slate-200 bg-white p-3 shadow-sm sm:p-4">
      <AgentLine agent={latest} />
      <AgentFacts agent={latest} />
      <p className="mt-1 text-xs text-slate-600">
        Chain: {length} agent{length === 1 ? "" : "s"}
      </p>
      {predecessors.length > 0 && (
        <details className="mt-2" open={predecessors.some((agent) => agent.handoff?.deliveryProblem?.kind === "stalled" || agent.arrivalProblem?.kind === "stalled") || undefined}>
          <summary className="cursor-pointer text-sm text-slate-700">
            {predecessors.length} earlier agent{predecessors.length === 1 ? "" : "s"} in this chain
          </summary>
          <ol aria-label={`Earlier agents of ${visibleBidiControls(latest.name)} ${latest.shortId}, newest first`} className="mt-2 flex flex-col gap-2 border-l-2 border-slate-200 pl-3">
            {predecessors.map((agent) => (
              <li key={agent.id} data-agent-id={agent.id} data-predecessor="true" className="text-sm">
                <AgentLine agent={agent} />
                <p className="mt-0.5 text-xs text-slate-600">
                  started <RelativeTime iso={agent.startedAt} />
                  {agent.endedAt && (
                    <>
                      {" "}
                      · ended <RelativeTime iso={agent.endedAt} />
                    </>
                  )}
                </p>
              </li>
            ))}
          </ol>
          {hidden > 0 && (
            <p className="mt-1 text-xs text-slate-600">
              And {hidden} more: the page of{" "}
              <Link href={`/agents/${predecessors[predecessors.length - 1].id}`} className="text-indigo-700 underline">
                the earliest shown
              </Link>{" "}
              lists the ones before it and links to the chain&apos;s first agent.
            </p>
          )}
        </details>
      )}
    </li>
  );
}

/** The agents of one page, grouped by continuity chain: the latest agent of each first, its predecessors folded. */
export function AgentList({ page, filters }: { page: AgentChainPage; filters: AgentFilters }) {
  if (page.chains.length === 0) {
    return (
      <div className="rounded-lg border border-dashed border-slate-300 bg-white p-6 text-sm text-slate-700">
        {Object.keys(filters).length > 0 ? (
          <p>
            No agents match these filters. <Link href="/agents" className="font-medium text-indigo-700 underline">Show all agents</Link>
          </p>
        ) : (
          <p>
            No agents yet. Agents register themselves through MCP (the <span className="font-mono">register_agent</span> tool), or{" "}
            <Link href="/agents/new" className="font-medium text-indigo-700 underline">
              register one here
            </Link>
            .
          </p>
        )}
      </div>
    );
  }
  return (
    <>
      <p className="mb-2 text-sm text-slate-600">
        {page.total} continuity chain{page.total === 1 ? "" : "s"}, latest agent first
      </p>
      <ul className="flex flex-col gap-2">
        {page.chains.map((chain) => (
          <ChainItem key={chain.latest.id} chain={chain} />
        ))}
      </ul>
      {page.pageCount > 1 && (
        <nav aria-label="Pages" className="mt-4 flex items-center justify-between text-sm">
          {page.page > 1 ? <Link href={`/agents${agentSearch(filters, page.page - 1)}`} className="text-indigo-700 underline">Newer</Link> : <span />}
          <span className="text-slate-600">
            Page {page.page} of {page.pageCount}
          </span>
          {page.page < page.pageCount ? <Link href={`/agents${agentSearch(filters, page.page + 1)}`} className="text-indigo-700 underline">Older</Link> : <span />}
        </nav>
      )}
    </>
  );
}
