import Link from "next/link";
import type { ReactNode } from "react";
import { ContextMeter } from "@/components/agents/agent-badges";
import { RetryDeliveryButton } from "@/components/agents/retry-delivery-button";
import { RelativeTime } from "@/components/ui/relative-time";
import { AttentionGroup } from "./attention-group";
import { AttentionThreads } from "./attention-threads";
import type { Attention } from "@/lib/dashboard/find-attention";
import { awayFromTheEntries } from "@/lib/git/types";
import { visibleBidiControls } from "@/lib/validation";

function Group({ id, title, count, children }: { id: string; title: string; count: number; children: ReactNode }) {
  if (count === 0) return null;
  return (
    <AttentionGroup id={id} title={title} count={count}>
      {children}
    </AttentionGroup>
  );
}

const listClass = "flex flex-col divide-y divide-slate-100";
const itemClass = "flex min-w-0 flex-col gap-1 py-2 first:pt-0 last:pb-0";
const linkClass = "font-medium text-indigo-700 break-words hover:underline";

/**
 * The top of the desk: what needs the operator now, each item linking to where to act (the
 * thread opened as the side that must answer, the agent whose delivery failed, …).
 */
export function AttentionView({ attention }: { attention: Attention }) {
  const { threads, deliveries, stale, nearLimit, count } = attention;
  return (
    <section id="attention" aria-labelledby="attention-heading" className="mb-8 scroll-mt-4">
      {/* Focusable from script: a row marked Done hands focus here when it was the last (attention-threads.tsx). */}
      <h2 id="attention-heading" tabIndex={-1} className="mb-3 text-base font-semibold text-slate-900">
        Needs you now{count > 0 && <span className="font-normal text-slate-600"> ({count})</span>}
      </h2>
      <div className="flex flex-col gap-3">
        {/* Mounted whatever the count: the Undo of the last thread marked outlives the list it emptied. */}
        <AttentionThreads threads={threads} />
        {count === 0 ? (
          <p data-testid="attention-clear" className="rounded-lg border border-dashed border-slate-300 bg-white p-4 text-sm text-slate-700">
            Nothing waits for you: no question unanswered and unseen by the side it is for, no new entry left unread for long, every shift prompt
            delivered, no handoff behind its repository, no agent near its context limit.
          </p>
        ) : (
          /* items-start: a short group keeps its own height beside a long one. */
          <div className="grid grid-cols-1 items-start gap-3 lg:grid-cols-2">
          <Group id="deliveries" title="Shift prompts that did not arrive" count={deliveries.length}>
            <ul className={listClass}>
            {deliveries.map(({ agent, record, successor }) => (
              <li key={record.id} className={itemClass}>
                <p className="text-sm text-slate-800">
                  <Link href={`/agents/${agent.id}`} className={linkClass}>
                    {visibleBidiControls(agent.name)} {agent.shortId}
                  </Link>{" "}
                  handed off
                  {successor && (
                    <>
                      {" "}
                      to{" "}
                      <Link href={`/agents/${successor.id}`} className={linkClass}>
                        {visibleBidiControls(successor.name)} {successor.shortId}
                      </Link>
                    </>
                  )}{" "}
                  <RelativeTime iso={record.createdAt} />.
                </p>
                <p data-testid="delivery-problem" className="text-sm break-words text-red-800">
                  {record.deliveryProblem?.message}
                </p>
                <RetryDeliveryButton agentId={record.agentId} target={successor?.tmuxTarget ?? null} />
              </li>
            ))}
            </ul>
          </Group>
          <Group id="stale" title="Handoffs behind their repository" count={stale.length}>
            <ul className={listClass}>
            {stale.map((handoff) => (
              <li key={handoff.handoffId} className={itemClass}>
                <Link href={`/handoffs/${handoff.handoffId}`} className={linkClass}>
                  {handoff.title}
                </Link>
                <p className="text-sm text-slate-700 break-words">{awayFromTheEntries(handoff.block)}</p>
              </li>
            ))}
            </ul>
          </Group>
          <Group id="context" title="Agents near their context limit" count={nearLimit.length}>
            <ul className={listClass}>
            {nearLimit.map((agent) => (
              <li key={agent.id} className={`${itemClass} sm:flex-row sm:items-center sm:justify-between`}>
                <span className="min-w-0">
                  <Link href={`/agents/${agent.id}`} className={linkClass}>
                    {visibleBidiControls(agent.name)}
                  </Link>{" "}
                  <code className="font-mono text-xs text-slate-600">{agent.shortId}</code>
                </span>
                <ContextMeter percent={agent.contextPercent} />
              </li>
            ))}
            </ul>
          </Group>
          </div>
        )}
      </div>
    </section>
  );
}
