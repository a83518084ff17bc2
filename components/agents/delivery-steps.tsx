import { RelativeTime } from "@/components/ui/relative-time";
import type { HandoffRecordView } from "@/lib/agents/views";
import { RetryDeliveryButton } from "./retry-delivery-button";

const STEPS = [
  { key: "createdAt", label: "Queued", help: "the shift handoff was recorded" },
  { key: "typedAt", label: "Typed", help: "tmux took the whole prompt" },
  { key: "submittedAt", label: "Submitted", help: "Enter sent and the prompt seen on the pane" },
  { key: "readAt", label: "Read", help: "the successor fetched the document" },
  { key: "actedAt", label: "Acted", help: "the successor reported its context" },
] as const;

/**
 * Each step of the injection prompt's delivery with its time and, when it did not arrive
 * (lib/agents deliveryProblemOf), why: flagged with *Retry delivery* while the successor is at
 * work, said without it once the successor has ended.
 */
export function DeliverySteps({ record, successorTarget }: { record: HandoffRecordView; successorTarget: string | null }) {
  const problem = record.deliveryProblem;
  return (
    <div className="flex flex-col gap-2" data-testid="delivery-steps" data-state={record.deliveryState ?? "unknown"}>
      <ol className="flex flex-col gap-1 text-sm">
        {STEPS.map((step) => {
          const at = record[step.key];
          return (
            <li key={step.key} data-step={step.label.toLowerCase()} data-done={at ? "true" : "false"} className="flex flex-wrap items-baseline gap-2">
              <span aria-hidden className={at ? "text-emerald-700" : "text-slate-400"}>
                {at ? "●" : "○"}
              </span>
              <span className={at ? "font-medium text-slate-900" : "text-slate-500"}>{step.label}</span>
              {at ? <RelativeTime iso={at} /> : <span className="text-xs text-slate-500">{step.help}</span>}
            </li>
          );
        })}
      </ol>
      {record.deliveryAttempts > 1 && <p className="text-xs text-slate-600">Sent {record.deliveryAttempts} times.</p>}
      {problem?.kind === "stalled" && (
        <div role="status" data-testid="delivery-stalled" className="flex flex-col gap-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
          <span data-testid="delivery-problem">{problem.message}</span>
          <RetryDeliveryButton agentId={record.agentId} target={successorTarget} />
        </div>
      )}
      {problem?.kind === "successor ended" && (
        <p data-testid="delivery-not-delivered" className="rounded-md border border-slate-300 bg-slate-50 p-3 text-sm text-slate-800">
          {problem.message}
        </p>
      )}
    </div>
  );
}
