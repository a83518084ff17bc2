import { Badge, type BadgeTone } from "@/components/ui/badge";
import type { EntryType, HandoffStatus } from "@/lib/handoffs/schemas";

const TYPE_TONES: Record<EntryType, BadgeTone> = {
  context: "slate",
  task: "indigo",
  progress: "sky",
  question: "amber",
  decision: "violet",
  done: "green",
};

export function EntryTypeBadge({ type }: { type: EntryType }) {
  return <Badge tone={TYPE_TONES[type]}>{type}</Badge>;
}

export function StatusBadge({ status }: { status: HandoffStatus }) {
  return <Badge tone={status === "active" ? "green" : "slate"}>{status}</Badge>;
}

const SOURCE_LABELS: Record<string, string> = {
  bundle: "rip bundle",
  handoff_json: "handoff.json",
  handoff_yaml: "handoff.yaml",
};

export function sourceLabel(format: string): string {
  return SOURCE_LABELS[format] ?? format;
}

export function SourceBadge({ format }: { format: string | null }) {
  if (!format) return null;
  return (
    <Badge tone="sky" title={`Imported from ${sourceLabel(format)}`}>
      {sourceLabel(format)}
    </Badge>
  );
}

/** "Chat: 2 unread": loud when there is something to read, quiet when not. */
export function UnreadBadge({ side, count }: { side: "chat" | "code"; count: number }) {
  const label = side === "chat" ? "Chat" : "Code";
  return (
    <Badge tone={count > 0 ? "amber" : "slate"} title={`${count} entries past ${side}'s cursor`}>
      {label}: {count} unread
    </Badge>
  );
}
