"use client";

import { EntryTypeBadge } from "@/components/handoffs/handoff-badges";
import { Markdown } from "@/components/ui/markdown";
import { RelativeTime } from "@/components/ui/relative-time";
import type { EntryView } from "@/lib/handoffs/views";
import { replyTo } from "./composer";

function EntryCard({ entry, isNew, answeredBy, canReply }: { entry: EntryView; isNew: boolean; answeredBy: number[]; canReply: boolean }) {
  const fromChat = entry.fromClient === "chat";
  return (
    <li
      id={`entry-${entry.number}`}
      data-seq={entry.seq}
      data-number={entry.number}
      data-type={entry.type}
      data-new={isNew || undefined}
      // Focusable, so j/k (components/keyboard-shortcuts.tsx) can move between entries and `r` replies to the focused question; scroll-mt keeps a jump's target clear of the window's top.
      tabIndex={-1}
      className={`scroll-mt-4 rounded-lg border bg-white p-4 shadow-sm focus:outline-2 focus:outline-indigo-500 target:ring-2 target:ring-indigo-300 ${isNew ? "border-amber-300 ring-1 ring-amber-200" : "border-slate-200"} ${
        fromChat ? "sm:mr-12" : "sm:ml-12"
      }`}
    >
      <div className="mb-2 flex flex-wrap items-center gap-2 text-xs text-slate-600">
        <EntryTypeBadge type={entry.type} />
        <span className={`font-semibold ${fromChat ? "text-indigo-800" : "text-emerald-800"}`}>{entry.fromClient}</span>
        <a href={`#entry-${entry.number}`} data-testid="entry-number" className="font-mono hover:underline" title={`Entry ${entry.number} of this thread; link to it`}>
          #{entry.number}
        </a>
        {entry.answers !== null && (
          <a href={`#entry-${entry.answers}`} data-testid="answers-link" className="font-medium text-indigo-700 hover:underline">
            answers #{entry.answers}
          </a>
        )}
        {answeredBy.length > 0 && (
          <a href={`#entry-${answeredBy[0]}`} data-testid="answered-by" className="rounded bg-emerald-50 px-1.5 py-0.5 font-semibold text-emerald-800 hover:underline">
            answered in #{answeredBy.join(", #")}
          </a>
        )}
        <RelativeTime iso={entry.createdAt} />
        {isNew && <span className="rounded bg-amber-100 px-1.5 py-0.5 font-semibold text-amber-900">new</span>}
        {canReply && entry.type === "question" && (
          <button type="button" data-reply onClick={() => replyTo(entry.number)} className="ml-auto rounded px-2 py-0.5 font-semibold text-indigo-700 hover:bg-indigo-50">
            Reply
          </button>
        )}
      </div>
      <Markdown>{entry.content}</Markdown>
    </li>
  );
}

/**
 * Entries in order; those past the viewing side's cursor are highlighted. Each shows its number
 * within the thread (#1 is the first), the one number every door quotes; the anchors use it too
 * (`#entry-12`), and the API's global seq stays in `data-seq`. A question offers Reply (or `r`
 * on it) while the thread takes entries; an answer links to its question and back.
 */
export function EntryList({ entries, cursor, answeredBy, canReply, label = "Entries" }: { entries: EntryView[]; cursor: number; answeredBy: Map<number, number[]>; canReply: boolean; label?: string }) {
  if (entries.length === 0) return null;
  return (
    <ol aria-label={label} className="flex flex-col gap-3">
      {entries.map((entry) => (
        <EntryCard key={entry.seq} entry={entry} isNew={entry.seq > cursor} answeredBy={answeredBy.get(entry.number) ?? []} canReply={canReply} />
      ))}
    </ol>
  );
}

/** Which entries answer each question, from the entries a page holds. */
export function answersIndex(entries: EntryView[]): Map<number, number[]> {
  const index = new Map<number, number[]>();
  for (const entry of entries) if (entry.answers !== null) index.set(entry.answers, [...(index.get(entry.answers) ?? []), entry.number]);
  return index;
}
