import { Badge, type BadgeTone } from "@/components/ui/badge";
import type { AgentStatus, DeliveryOutcome, ShiftHandoffReason } from "@/lib/agents";
import { CONTEXT_NEAR_LIMIT_PERCENT } from "@/lib/dashboard/thresholds";

const REASON_LABELS: Record<ShiftHandoffReason, string> = {
  context_limit: "Context limit",
  shift_end: "Shift end",
  task_boundary: "Task boundary",
};

export function reasonLabel(reason: ShiftHandoffReason): string {
  return REASON_LABELS[reason] ?? reason;
}

export function StatusBadge({ status }: { status: AgentStatus }) {
  return <Badge tone={status === "active" ? "green" : "slate"}>{status === "active" ? "Active" : "Ended"}</Badge>;
}

export function ReasonBadge({ reason }: { reason: ShiftHandoffReason }) {
  return (
    <Badge tone="violet" title={`Handed off: ${reason}`}>
      Handed off: {reasonLabel(reason)}
    </Badge>
  );
}

export function DeliveryBadge({ delivery }: { delivery: DeliveryOutcome | null }) {
  let tone: BadgeTone = "slate";
  let label = "Delivery not recorded yet";
  if (delivery === "delivered") [tone, label] = ["green", "Delivered to tmux"];
  else if (delivery === "no target") [tone, label] = ["slate", "No tmux target: paste the prompt yourself"];
  else if (delivery) [tone, label] = ["red", `tmux delivery ${delivery}`];
  return (
    <Badge tone={tone} wrap>
      {label}
    </Badge>
  );
}

/** Context use as a small meter, colour rising with the number. */
export function ContextMeter({ percent }: { percent: number | null }) {
  if (percent === null) return <span className="text-xs text-slate-600">context not reported</span>;
  const color = percent >= CONTEXT_NEAR_LIMIT_PERCENT ? "bg-red-600" : percent >= 60 ? "bg-amber-500" : "bg-emerald-600";
  return (
    <span className="inline-flex items-center gap-2 text-xs text-slate-700">
      <span
        role="meter"
        aria-label="Context used"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        className="inline-block h-2 w-16 overflow-hidden rounded-full bg-slate-200"
      >
        <span className={`block h-full ${color}`} style={{ width: `${percent}%` }} />
      </span>
      {percent}% context
    </span>
  );
}
