import Link from "next/link";
import { CopyButton } from "@/components/ui/copy-button";
import { RelativeTime } from "@/components/ui/relative-time";
import type { ChainNode, HandoffRecordView } from "@/lib/agents";
import type { DeliveryProblem } from "@/lib/agents/delivery-states";
import { RetryDeliveryButton } from "./retry-delivery-button";
import { visibleBidiControls } from "@/lib/validation";

/**
 * On a successor's page: the shift prompt meant for it did not reach its pane (failed, or not
 * seen entered in time), so it may not know where to start. Retry from here, or paste the prompt;
 * once it has ended, only said (there is no one left to deliver it to).
 */
export function ArrivalProblem({ predecessor, record, problem, target }: { predecessor: ChainNode; record: HandoffRecordView; problem: DeliveryProblem; target: string | null }) {
  if (problem.kind === "successor ended") {
    return (
      <p data-testid="arrival-not-delivered" className="mb-6 break-words rounded-lg border border-slate-300 bg-slate-50 p-4 text-sm text-slate-800">
        <Link href={`/agents/${predecessor.id}`} className="font-semibold underline">
          {visibleBidiControls(predecessor.name)} {predecessor.shortId}
        </Link>
        &apos;s shift prompt: {problem.message}
      </p>
    );
  }
  return (
    <section
      data-testid="arrival-stalled"
      aria-labelledby="arrival-heading"
      className="mb-6 flex flex-col gap-3 rounded-lg border border-red-300 bg-red-50 p-4 text-sm text-red-900"
    >
      <h2 id="arrival-heading" className="text-base font-semibold">
        Prompt did not arrive
      </h2>
      <p className="break-words">
        <Link href={`/agents/${predecessor.id}`} className="font-semibold underline">
          {visibleBidiControls(predecessor.name)} {predecessor.shortId}
        </Link>{" "}
        handed off to it <RelativeTime iso={record.createdAt} />.{" "}
        <span data-testid="delivery-problem">{problem.message}</span> Retry the delivery (to another pane if this one is
        wrong), or paste the prompt into its session yourself.
      </p>
      <RetryDeliveryButton agentId={record.agentId} target={target} />
      {record.injectionPrompt && <CopyButton text={record.injectionPrompt} label="Copy the prompt" className="self-start" />}
    </section>
  );
}
