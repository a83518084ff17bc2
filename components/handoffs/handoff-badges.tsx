import { Badge, type BadgeTone } from "@/components/ui/badge";
import { FORMAT_LABELS, type SourceFormat } from "@/lib/formats/types";
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
  return <Badge tone={status === "active" ? "green" : "slate"}>{status === "active" ? "Active" : "Completed"}</Badge>;
}

/** The format's label (the one set in lib/formats/types.ts); an unknown stored value as it is. */
function sourceLabel(format: string): string {
  return Object.hasOwn(FORMAT_LABELS, format) ? FORMAT_LABELS[format as SourceFormat] : format;
}

export function SourceBadge({ format }: { format: string | null }) {
  if (!format) return null;
  return (
    <Badge tone="sky" title={`Imported from ${sourceLabel(format)}`}>
      {sourceLabel(format)}
    </Badge>
  );
}

/** "Chat: 2 unread", only when there is something to read: a row of zeros says nothing. */
export function UnreadBadge({ side, count }: { side: "chat" | "code"; count: number }) {
  if (count === 0) return null;
  const label = side === "chat" ? "Chat" : "Code";
  return (
    <Badge tone="amber" title={`${count} ${count === 1 ? "entry" : "entries"} past ${side}'s cursor`}>
      {label}: {count} unread
    </Badge>
  );
}
