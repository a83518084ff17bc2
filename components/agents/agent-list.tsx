import Link from "next/link";
import { RelativeTime } from "@/components/ui/relative-time";
import type { AgentPage } from "@/lib/agents";
import { agentSearch, type AgentFilters } from "@/lib/agents/agent-filters";
import { ContextMeter, ReasonBadge, StatusBadge } from "./agent-badges";

/** The agents of one page, each linking to its chain and handoff. */
export function AgentList({ page, filters }: { page: AgentPage; filters: AgentFilters }) {
  if (page.items.length === 0) {
    return (
      <div className="rounded-lg border border-dashed border-slate-300 bg-white p-6 text-sm text-slate-700">
        {Object.keys(filters).length > 0 ? (
          <p>
            No agents match these filters. <Link href="/agents" className="font-medium text-indigo-700 underline">Show all agents</Link>
          </p>
        ) : (
          <p>
            No agents yet. Agents register themselves through MCP (<code className="font-mono">register_agent</code>), or{" "}
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
        {page.total} agent{page.total === 1 ? "" : "s"}
      </p>
      <ul className="flex flex-col gap-2">
        {page.items.map((agent) => (
          <li key={agent.id} data-agent-id={agent.id} className="rounded-lg border border-slate-200 bg-white p-3 shadow-sm sm:p-4">
            <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
              <Link href={`/agents/${agent.id}`} className="min-w-0 break-words font-semibold text-indigo-700 hover:underline">
                {agent.name}
              </Link>
              <code className="font-mono text-xs text-slate-600">{agent.shortId}</code>
              <StatusBadge status={agent.status} />
              {agent.handoff && <ReasonBadge reason={agent.handoff.reason} />}
            </div>
            <dl className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-700">
              <div className="flex gap-1">
                <dt className="text-slate-600">Persona</dt>
                <dd className="font-mono">{agent.personaSlug}</dd>
              </div>
              {agent.project && (
                <div className="flex gap-1">
                  <dt className="text-slate-600">Project</dt>
                  <dd className="font-mono">{agent.project}</dd>
                </div>
              )}
              <div className="flex gap-1">
                <dt className="text-slate-600">Chain</dt>
                <dd>
                  {agent.chainLength} agent{agent.chainLength === 1 ? "" : "s"}
                </dd>
              </div>
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
          </li>
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
