"use client";

import Link from "next/link";
import { useActionState, useRef, useState, type KeyboardEvent } from "react";
import { markAttentionAction, unmarkAttentionAction } from "@/app/attention-actions";
import { Badge } from "@/components/ui/badge";
import { buttonClass } from "@/components/ui/button";
import { RelativeTime } from "@/components/ui/relative-time";
import { AttentionGroup } from "./attention-group";
import { useDismissableDetails } from "@/components/ui/use-dismissable-details";
import { useFocusOutlivesRows } from "@/components/ui/use-focus-outlives-rows";
import type { SideAttention, ThreadAttention } from "@/lib/dashboard/find-attention";
import { idleFormState, withoutPreviousState } from "@/lib/form-state";
import { visibleBidiControls } from "@/lib/validation";

/** "Needs you now" (components/dashboard/attention-view.tsx): where focus goes when the last row leaves; it stays when the group goes. */
const ATTENTION_HEADING_ID = "attention-heading";

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** "3 questions, 12 new entries" for one side. */
function countsOf(side: SideAttention): string {
  const parts = [];
  if (side.questions.length > 0) parts.push(plural(side.questions.length, "question", "questions"));
  if (side.newCount > 0) parts.push(plural(side.newCount, "new entry", "new entries"));
  return parts.join(", ") || "waiting";
}

/** When a timed snooze ends, by the operator's own clock: in an hour, the next 9:00, Monday 9:00. */
function snoozeTimes(now = new Date()): { label: string; until: string }[] {
  const at9 = (days: number) => {
    const date = new Date(now);
    date.setDate(date.getDate() + days);
    date.setHours(9, 0, 0, 0);
    return date;
  };
  const untilMonday = (8 - now.getDay()) % 7 || 7;
  return [
    { label: "For an hour", until: new Date(now.getTime() + 3_600_000).toISOString() },
    { label: "Until tomorrow 9:00", until: at9(1).toISOString() },
    { label: "Until Monday 9:00", until: at9(untilMonday).toISOString() },
  ];
}

type Mark = (formData: FormData) => void;
type Marking = { mark: Mark; onSubmit: (thread: ThreadAttention, form: HTMLFormElement) => void };

function MarkForm({ thread, kind, until, label, marking, formRef }: {
  thread: ThreadAttention;
  kind: "done" | "snoozed";
  until?: string;
  label: string;
  marking: Marking;
  formRef?: React.Ref<HTMLFormElement>;
}) {
  return (
    <form ref={formRef} action={marking.mark} onSubmit={(event) => marking.onSubmit(thread, event.currentTarget)} className="contents">
      <input type="hidden" name="handoffId" value={thread.handoffId} />
      <input type="hidden" name="sides" value={thread.sides.map((side) => side.side).join(" ")} />
      <input type="hidden" name="kind" value={kind} />
      <input type="hidden" name="throughNumber" value={thread.lastNumber} />
      {until && <input type="hidden" name="until" value={until} />}
      <button type="submit" className={kind === "done" ? buttonClass("secondary") : "w-full px-3 py-1.5 text-left text-sm text-slate-800 hover:bg-slate-100"}>
        {label}
      </button>
    </form>
  );
}

function SnoozeMenu({ thread, marking }: { thread: ThreadAttention; marking: Marking }) {
  // Times are read when the menu opens: a page left open overnight must not snooze until yesterday's "tomorrow".
  const [times, setTimes] = useState<{ label: string; until: string }[]>([]);
  const dismissable = useDismissableDetails();
  return (
    <details ref={dismissable} className="relative" onToggle={(event) => (event.currentTarget.open ? setTimes(snoozeTimes()) : undefined)}>
      <summary className={`${buttonClass("ghost")} cursor-pointer list-none`}>Snooze</summary>
      <div className="absolute right-0 z-10 mt-1 flex w-56 flex-col rounded-md border border-slate-200 bg-white py-1 shadow-lg">
        {times.map((time) => (
          <MarkForm key={time.label} thread={thread} kind="snoozed" until={time.until} label={time.label} marking={marking} />
        ))}
        <MarkForm thread={thread} kind="snoozed" label="Until a new entry" marking={marking} />
      </div>
    </details>
  );
}

function ThreadRow({ thread, marking }: { thread: ThreadAttention; marking: Marking }) {
  const done = useRef<HTMLFormElement>(null);
  const first = thread.sides[0];
  const latestQuestion = thread.sides.flatMap((side) => side.questions).sort((a, b) => b.number - a.number)[0];
  // `e` on the focused row (or a link in it): Done, as in an inbox. Once per press: a held key
  // repeats on the row focus moved to, and only the last mark has Undo.
  const onKeyDown = (event: KeyboardEvent<HTMLLIElement>) => {
    if (event.key !== "e" || event.repeat || event.ctrlKey || event.metaKey || event.altKey) return;
    if ((event.target as HTMLElement).closest("input, textarea, select, summary, details")) return;
    event.preventDefault();
    done.current?.requestSubmit();
  };
  return (
    <li
      data-testid="attention-thread"
      data-handoff-id={thread.handoffId}
      tabIndex={0}
      onKeyDown={onKeyDown}
      aria-label={`${visibleBidiControls(thread.title)}: ${thread.sides.map((side) => `${countsOf(side)} for ${side.side}`).join("; ")}. Press e for Done.`}
      className="flex min-w-0 flex-col gap-2 py-3 first:pt-0 last:pb-0 focus:outline-2 focus:outline-offset-2 focus:outline-indigo-500 sm:flex-row sm:items-start sm:justify-between"
    >
      <div className="flex min-w-0 flex-col gap-1">
        <Link href={`/handoffs/${thread.handoffId}?as=${first.side}&entry=${first.openAt}#entry-${first.openAt}`} className="font-medium break-words text-indigo-700 hover:underline">
          {visibleBidiControls(thread.title)}
        </Link>
        <p className="flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-slate-600">
          {thread.sides.map((side) => (
            <Badge key={side.side} tone="amber">
              <span data-testid="attention-counts">{countsOf(side)}</span> for {side.side}
            </Badge>
          ))}
          {thread.project && <span>project {thread.project}</span>}
          <span>
            <RelativeTime iso={thread.latestAt} />
          </span>
        </p>
        {latestQuestion && (
          <p className="text-sm break-words text-slate-700">
            <span className="mr-1.5 font-mono text-xs text-slate-600">question #{latestQuestion.number}</span>
            <span data-testid="question-excerpt">{visibleBidiControls(latestQuestion.excerpt)}</span>
          </p>
        )}
      </div>
      <div className="flex shrink-0 items-center gap-1">
        <MarkForm thread={thread} kind="done" label="Done" marking={marking} formRef={done} />
        <SnoozeMenu thread={thread} marking={marking} />
      </div>
    </li>
  );
}

/**
 * The marked row leaves the list: if focus was in it, it moves to the next row (the previous one
 * if it was the last, "Needs you now" if none is left), so triage goes on with `e`, `e`, `e`
 * instead of starting again from the top of the page.
 */
function keepFocusInList(form: HTMLFormElement) {
  const row = form.closest("li");
  if (!row?.contains(document.activeElement)) return;
  const next = row.nextElementSibling ?? row.previousElementSibling;
  const heading = document.getElementById(ATTENTION_HEADING_ID);
  (next instanceof HTMLElement ? next : heading)?.focus();
}

/**
 * "Needs you now": one row per thread, newest first, with Done (`e`) and Snooze. A marked row
 * leaves the list as it is sent (the server keeps the mark per operator and side, and the page
 * follows); Undo brings it back. The marks' state lives here, not in the row: the row is gone by
 * the time the server answers.
 */
export function AttentionThreads({ threads }: { threads: ThreadAttention[] }) {
  const [state, mark] = useActionState(withoutPreviousState(markAttentionAction), idleFormState);
  const [undoState, undo, undoing] = useActionState(withoutPreviousState(unmarkAttentionAction), idleFormState);
  const [marked, setMarked] = useState<ThreadAttention | null>(null);
  // Hidden from the list the mark was made on, until the server's next list (which leaves it out) arrives.
  const [markedIn, setMarkedIn] = useState<ThreadAttention[] | null>(null);
  const failed = state.status === "error";
  const shown = threads.filter((thread) => failed || markedIn !== threads || thread.handoffId !== marked?.handoffId);
  const list = useRef<HTMLUListElement>(null);
  // A row that leaves with the server's next list while focus is in it (answered or read by another process) hands focus on as Done does.
  const focusKeeping = useFocusOutlivesRows(
    list,
    shown.map((thread) => thread.handoffId),
    { keyAttribute: "data-handoff-id", fallbackId: ATTENTION_HEADING_ID },
  );
  const marking: Marking = {
    mark,
    onSubmit: (thread, form) => {
      keepFocusInList(form);
      setMarked(thread);
      setMarkedIn(threads);
    },
  };
  if (shown.length === 0 && !marked) return null;
  return (
    <AttentionGroup id="threads" title="Threads waiting for a side" count={threads.length}>
      {marked && (
        <div role="status" className={`mb-2 flex flex-wrap items-center gap-2 rounded-md px-3 py-2 text-sm ${failed ? "bg-red-50 text-red-800" : "bg-slate-100 text-slate-800"}`}>
          {failed ? (
            <span className="min-w-0 break-words">Could not mark “{visibleBidiControls(marked.title)}”: {state.message}</span>
          ) : undoState.values?.handoffId === marked.handoffId ? (
            <span className="min-w-0 break-words">“{visibleBidiControls(marked.title)}” is back in the list.</span>
          ) : (
            <>
              <span className="min-w-0 break-words">“{visibleBidiControls(marked.title)}” is off the list.</span>
              <form action={undo}>
                <input type="hidden" name="handoffId" value={marked.handoffId} />
                <button type="submit" disabled={undoing} className="font-semibold text-indigo-700 underline">
                  Undo
                </button>
              </form>
            </>
          )}
        </div>
      )}
      {shown.length > 0 && (
        <ul ref={list} {...focusKeeping} className="flex flex-col divide-y divide-slate-100">
          {shown.map((thread) => (
            <ThreadRow key={thread.handoffId} thread={thread} marking={marking} />
          ))}
        </ul>
      )}
    </AttentionGroup>
  );
}
