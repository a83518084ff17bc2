import { EntryTypeBadge } from "@/components/handoffs/handoff-badges";
import { Markdown } from "@/components/ui/markdown";
import { RelativeTime } from "@/components/ui/relative-time";
import type { EntryView } from "@/lib/handoffs/views";

function EntryCard({ entry, isNew }: { entry: EntryView; isNew: boolean }) {
  const fromChat = entry.fromClient === "chat";
  return (
    <li
      id={`entry-${entry.seq}`}
      data-seq={entry.seq}
      data-new={isNew || undefined}
      className={`rounded-lg border bg-white p-4 shadow-sm ${isNew ? "border-amber-300 ring-1 ring-amber-200" : "border-slate-200"} ${
        fromChat ? "sm:mr-12" : "sm:ml-12"
      }`}
    >
      <div className="mb-2 flex flex-wrap items-center gap-2 text-xs text-slate-600">
        <EntryTypeBadge type={entry.type} />
        <span className={`font-semibold ${fromChat ? "text-indigo-800" : "text-emerald-800"}`}>{entry.fromClient}</span>
        <a href={`#entry-${entry.seq}`} className="font-mono hover:underline">
          #{entry.seq}
        </a>
        <RelativeTime iso={entry.createdAt} />
        {isNew && <span className="rounded bg-amber-100 px-1.5 py-0.5 font-semibold text-amber-900">new</span>}
      </div>
      <Markdown>{entry.content}</Markdown>
    </li>
  );
}

/** The thread in seq order; entries past the viewing side's cursor are highlighted. */
export function EntryList({ entries, cursor }: { entries: EntryView[]; cursor: number }) {
  if (entries.length === 0) return null;
  return (
    <ol aria-label="Entries" className="flex flex-col gap-3">
      {entries.map((entry) => (
        <EntryCard key={entry.seq} entry={entry} isNew={entry.seq > cursor} />
      ))}
    </ol>
  );
}
