import { CopyButton } from "@/components/ui/copy-button";
import { RelativeTime } from "@/components/ui/relative-time";
import type { AgentView } from "@/lib/agents";
import { ContextMeter } from "./agent-badges";

/** The agent's facts: persona, project, session, terminal, context use, times. */
export function AgentOverview({ agent }: { agent: AgentView }) {
  return (
    <section aria-labelledby="overview-heading" className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <h2 id="overview-heading" className="sr-only">
        Details
      </h2>
      <dl className="grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-[auto_1fr]">
        <dt className="text-slate-600">Persona</dt>
        <dd className="font-mono wrap-anywhere">{agent.personaSlug}</dd>
        <dt className="text-slate-600">Project</dt>
        <dd className="font-mono wrap-anywhere">{agent.project ?? "none"}</dd>
        <dt className="text-slate-600">Session</dt>
        <dd className="flex flex-wrap items-center gap-2">
          <code data-testid="session-id" className="break-all font-mono text-xs">
            {agent.sessionId}
          </code>
          <CopyButton text={agent.sessionId} label="Copy session id" />
        </dd>
        <dt className="text-slate-600">tmux target</dt>
        <dd className="font-mono wrap-anywhere">{agent.tmuxTarget ?? "none"}</dd>
        <dt className="text-slate-600">Context</dt>
        <dd>
          <ContextMeter percent={agent.contextPercent} />
        </dd>
        <dt className="text-slate-600">Started</dt>
        <dd>
          <RelativeTime iso={agent.startedAt} />
        </dd>
        {agent.endedAt && (
          <>
            <dt className="text-slate-600">Ended</dt>
            <dd>
              <RelativeTime iso={agent.endedAt} />
            </dd>
          </>
        )}
      </dl>
    </section>
  );
}
