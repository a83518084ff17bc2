import { EntryTypeBadge } from "@/components/handoffs/handoff-badges";
import { Markdown } from "@/components/ui/markdown";
import { RelativeTime } from "@/components/ui/relative-time";
import type { EntryView } from "@/lib/handoffs/views";

function EntryCard({ entry, number, isNew }: { entry: EntryView; number: number; isNew: boolean }) {
  const fromChat = entry.fromClient === "chat";
  return (
    <li
      id={`entry-${entry.seq}`}
      data-seq={entry.seq}
      data-number={number}
      data-new={isNew || undefined}
      // Focusable, so j/k (components/keyboard-shortcuts.tsx) can move between entries; scroll-mt keeps a jump's target clear of the window's top.
      tabIndex={-1}
      className={`scroll-mt-4 rounded-lg border bg-white p-4 shadow-sm focus:outline-2 focus:outline-indigo-500 ${isNew ? "border-amber-300 ring-1 ring-amber-200" : "border-slate-200"} ${
        fromChat ? "sm:mr-12" : "sm:ml-12"
      }`}
    >
      <div className="mb-2 flex flex-wrap items-center gap-2 text-xs text-slate-600">
        <EntryTypeBadge type={entry.type} />
        <span className={`font-semibold ${fromChat ? "text-indigo-800" : "text-emerald-800"}`}>{entry.fromClient}</span>
        <a href={`#entry-${entry.seq}`} className="font-mono hover:underline" title={`Entry ${number} of this thread (seq ${entry.seq} in the API)`}>
          #{number}
        </a>
        <RelativeTime iso={entry.createdAt} />
        {isNew && <span className="rounded bg-amber-100 px-1.5 py-0.5 font-semibold text-amber-900">new</span>}
      </div>
      <Markdown>{entry.content}</Markdown>
    </li>
  );
}

/**
 * The thread in order; entries past the viewing side's cursor are highlighted. People see each
 * entry's number within the thread (#1 is its first); the API's global seq stays in the markup
 * (`data-seq`, the anchors) and in the number's tooltip. `firstNumber` is the number of the first
 * entry held (the page may not hold the earliest ones).
 */
export function EntryList({ entries, cursor, firstNumber }: { entries: EntryView[]; cursor: number; firstNumber: number }) {
  if (entries.length === 0) return null;
  return (
    <ol aria-label="Entries" className="flex flex-col gap-3">
      {entries.map((entry, index) => (
        <EntryCard key={entry.seq} entry={entry} number={firstNumber + index} isNew={entry.seq > cursor} />
      ))}
    </ol>
  );
}
