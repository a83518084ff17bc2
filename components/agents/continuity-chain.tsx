import Link from "next/link";
import { RelativeTime } from "@/components/ui/relative-time";
import type { ChainNode, ContinuityChain, DeliveryProblem } from "@/lib/agents";
import { reasonLabel, StatusBadge } from "./agent-badges";
import { DeliveryFlags } from "./delivery-flags";
import { visibleBidiControls } from "@/lib/validation";

function Node({ node, current, arrival }: { node: ChainNode; current: boolean; arrival: DeliveryProblem | null }) {
  const label = (
    <>
      <span className="font-semibold">{visibleBidiControls(node.name)}</span> <code className="font-mono text-xs">{node.shortId}</code>
    </>
  );
  return (
    <li
      data-chain-agent={node.id}
      aria-current={current ? "step" : undefined}
      className="relative border-l-2 border-slate-200 pb-4 pl-5 last:border-transparent last:pb-0"
    >
      <span
        aria-hidden
        className={`absolute -left-[7px] top-1 h-3 w-3 rounded-full ring-2 ring-slate-50 ${current ? "bg-indigo-600" : node.status === "active" ? "bg-emerald-600" : "bg-slate-400"}`}
      />
      <div className={`rounded-md border p-3 ${current ? "border-indigo-300 bg-indigo-50" : "border-slate-200 bg-white"}`}>
        <div className="flex flex-wrap items-center gap-2">
          {current ? (
            <span className="text-slate-900">
              {label} <span className="text-xs text-indigo-800">(this agent)</span>
            </span>
          ) : (
            <Link href={`/agents/${node.id}`} className="text-indigo-700 hover:underline">
              {label}
            </Link>
          )}
          <StatusBadge status={node.status} />
          <DeliveryFlags own={node.handoff?.deliveryProblem ?? null} arrival={arrival} />
        </div>
        <p className="mt-1 text-xs text-slate-700">
          <span className="font-mono">{node.personaSlug}</span> · started <RelativeTime iso={node.startedAt} />
          {node.endedAt && (
            <>
              {" "}
              · ended <RelativeTime iso={node.endedAt} />
            </>
          )}
        </p>
        {node.handoff && (
          <p className="mt-1 text-xs text-violet-800">
            Handed off: {reasonLabel(node.handoff.reason)}, <RelativeTime iso={node.handoff.createdAt} />
          </p>
        )}
      </div>
    </li>
  );
}

/** A link to an agent of the chain that is not listed (its first or last). */
function ChainEnd({ node }: { node: ChainNode }) {
  return (
    <Link href={`/agents/${node.id}`} className="text-indigo-700 underline">
      {visibleBidiControls(node.name)} <code className="font-mono text-xs">{node.shortId}</code>
    </Link>
  );
}

/**
 * The continuity chain as a timeline: predecessors (oldest first), this agent, successors; of a
 * long chain the nearest on each side (CHAIN_WINDOW), with links to its first and last agent.
 */
export function ContinuityChainView({ chain }: { chain: ContinuityChain }) {
  const nodes = [...chain.predecessors, chain.agent, ...chain.successors];
  const byId = new Map(nodes.map((node) => [node.id, node]));
  // A shift prompt that did not arrive is said on both ends: the agent that handed off and its successor.
  const arrivalOf = (node: ChainNode) => (node.previousAgentId === null ? null : (byId.get(node.previousAgentId)?.handoff?.deliveryProblem ?? null));
  return (
    <section aria-labelledby="chain-heading" className="flex flex-col gap-3">
      <h2 id="chain-heading" className="text-lg font-semibold text-slate-900">
        Continuity chain <span className="text-sm font-normal text-slate-600">({chain.length} agent{chain.length === 1 ? "" : "s"})</span>
      </h2>
      {chain.length === 1 && <p className="text-sm text-slate-600">No predecessor or successor yet: the chain grows when this agent hands off.</p>}
      {chain.first && (
        <p data-testid="chain-earlier" className="text-sm text-slate-600">
          {chain.earlier} earlier agent{chain.earlier === 1 ? "" : "s"} not shown; the chain starts with <ChainEnd node={chain.first} />.
        </p>
      )}
      <ol aria-label="Agents in order, oldest first" className="ml-2">
        {nodes.map((node) => (
          <Node key={node.id} node={node} current={node.id === chain.agent.id} arrival={arrivalOf(node)} />
        ))}
      </ol>
      {chain.last && (
        <p data-testid="chain-later" className="text-sm text-slate-600">
          {chain.later} later agent{chain.later === 1 ? "" : "s"} not shown; the last is <ChainEnd node={chain.last} />.
        </p>
      )}
    </section>
  );
}
