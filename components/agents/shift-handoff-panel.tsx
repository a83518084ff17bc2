import { CopyButton } from "@/components/ui/copy-button";
import { RelativeTime } from "@/components/ui/relative-time";
import type { ShiftDocumentContent, HandoffRecordView } from "@/lib/agents";
import { DeliveryBadge, reasonLabel } from "./agent-badges";
import { DeliverySteps } from "./delivery-steps";
import { ShiftDocumentView } from "./shift-document-view";

/** The agent's handoff record: why, when, the document, the prompt and how it was delivered. */
export function ShiftHandoffPanel({
  record,
  document,
  successorTarget,
}: {
  record: HandoffRecordView;
  document: ShiftDocumentContent;
  /** The pane the prompt goes to: the successor's tmux target. */
  successorTarget: string | null;
}) {
  return (
    <section aria-labelledby="handoff-heading" className="flex flex-col gap-3">
      <h2 id="handoff-heading" className="text-lg font-semibold text-slate-900">
        Shift handoff
      </h2>
      <dl className="grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-[auto_1fr]">
        <dt className="text-slate-600">Reason</dt>
        <dd data-testid="handoff-reason" className="font-medium text-slate-900">
          {reasonLabel(record.reason)} <code className="font-mono text-xs text-slate-600">{record.reason}</code>
        </dd>
        <dt className="text-slate-600">Created</dt>
        <dd>
          <RelativeTime iso={record.createdAt} />
        </dd>
        <dt className="text-slate-600">Document</dt>
        <dd className="flex flex-wrap items-center gap-2">
          <span className="break-all font-mono text-xs">{record.filePath ?? "none"}</span>
          {document.status === "ok" && (
            <a href={`/api/agents/${record.agentId}/document`} target="_blank" rel="noopener" className="text-xs font-medium text-indigo-700 underline">
              Open document
            </a>
          )}
        </dd>
        {/* A delivery that did not arrive is said, with tmux's reason, under its steps. */}
        {!record.deliveryProblem && (
          <>
            <dt className="text-slate-600">tmux delivery</dt>
            <dd data-testid="delivery">
              <DeliveryBadge delivery={record.delivery} />
            </dd>
          </>
        )}
        {record.deliveryState !== null && (
          <>
            <dt className="text-slate-600">Delivery steps</dt>
            <dd>
              <DeliverySteps record={record} successorTarget={successorTarget} />
            </dd>
          </>
        )}
      </dl>
      {record.injectionPrompt && (
        <div className="flex flex-col gap-2">
          <h3 className="text-sm font-semibold text-slate-800">Injection prompt</h3>
          <div className="flex flex-col gap-2 sm:flex-row sm:items-start">
            <pre data-testid="injection-prompt" className="code-block min-w-0 flex-1">
              {record.injectionPrompt}
            </pre>
            <CopyButton text={record.injectionPrompt} label="Copy prompt" />
          </div>
        </div>
      )}
      <details className="group" open>
        <summary className="cursor-pointer text-sm font-semibold text-slate-800">Shift document</summary>
        <div className="mt-2">
          <ShiftDocumentView document={document} />
        </div>
      </details>
    </section>
  );
}
