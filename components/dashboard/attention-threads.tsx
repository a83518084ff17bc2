"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useActionState, useEffect, useRef, useState, type KeyboardEvent } from "react";
import { markAttentionAction, unmarkAttentionAction } from "@/app/attention-actions";
import { Badge } from "@/components/ui/badge";
import { buttonClass } from "@/components/ui/button";
import { RelativeTime } from "@/components/ui/relative-time";
import type { SideAttention, ThreadAttention } from "@/lib/dashboard/find-attention";
import { idleFormState } from "@/lib/form-state";

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** "3 questions, 12 new entries" for one side. */
function countsOf(side: SideAttention): string {
  const parts = [];
  if (side.questions.length > 0) parts.push(plural(side.questions.length, "question", "questions"));
  if (side.newCount > 0) parts.push(plural(side.newCount, "new entry", "new entries"));
  return parts.join(", ") || "waiting";
}

/** When a timed snooze ends, from the operator's own clock: the next 9:00, Monday 9:00. */
function snoozeTimes(now = new Date()): { label: string; until: string }[] {
  const at9 = (days: number) => {
    const date = new Date(now);
    date.setDate(date.getDate() + days);
    date.setHours(9, 0, 0, 0);
    return date;
  };
  const untilMonday = ((8 - now.getDay()) % 7) || 7;
  return [
    { label: "For an hour", until: new Date(now.getTime() + 3_600_000).toISOString() },
    { label: "Until tomorrow 9:00", until: at9(1).toISOString() },
    { label: "Until Monday 9:00", until: at9(untilMonday).toISOString() },
  ];
}

function MarkForm({ thread, kind, until, label, onMarked, formRef }: {
  thread: ThreadAttention;
  kind: "done" | "snoozed";
  until?: string;
  label: string;
  onMarked: (thread: ThreadAttention) => void;
  formRef?: React.Ref<HTMLFormElement>;
}) {
  const [state, formAction, pending] = useActionState(markAttentionAction, idleFormState);
  useEffect(() => {
    if (state.status === "success") onMarked(thread);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per success
  }, [state.successAt]);
  return (
    <form ref={formRef} action={formAction} className="contents">
      <input type="hidden" name="handoffId" value={thread.handoffId} />
      <input type="hidden" name="sides" value={thread.sides.map((side) => side.side).join(" ")} />
      <input type="hidden" name="kind" value={kind} />
      <input type="hidden" name="throughNumber" value={thread.lastNumber} />
      {until && <input type="hidden" name="until" value={until} />}
      <button type="submit" disabled={pending} className={kind === "done" ? buttonClass("secondary") : "w-full px-3 py-1.5 text-left text-sm text-slate-800 hover:bg-slate-100"}>
        {label}
      </button>
      {state.status === "error" && (
        <span role="alert" className="text-xs text-red-700">
          {state.message}
        </span>
      )}
    </form>
  );
}

function SnoozeMenu({ thread, onMarked }: { thread: ThreadAttention; onMarked: (thread: ThreadAttention) => void }) {
  // Times are read when the menu opens: a page left open overnight must not snooze until "tomorrow" of yesterday.
  const [times, setTimes] = useState<{ label: string; until: string }[]>([]);
  return (
    <details className="relative" onToggle={(event) => (event.currentTarget.open ? setTimes(snoozeTimes()) : undefined)}>
      <summary className={`${buttonClass("ghost")} cursor-pointer list-none`}>Snooze</summary>
      <div role="menu" className="absolute right-0 z-10 mt-1 flex w-56 flex-col rounded-md border border-slate-200 bg-white py-1 shadow-lg">
        {times.map((time) => (
          <MarkForm key={time.label} thread={thread} kind="snoozed" until={time.until} label={time.label} onMarked={onMarked} />
        ))}
        <MarkForm thread={thread} kind="snoozed" label="Until a new entry" onMarked={onMarked} />
      </div>
    </details>
  );
}

function ThreadRow({ thread, onMarked }: { thread: ThreadAttention; onMarked: (thread: ThreadAttention) => void }) {
  const done = useRef<HTMLFormElement>(null);
  const first = thread.sides[0];
  const latestQuestion = thread.sides.flatMap((side) => side.questions).sort((a, b) => b.number - a.number)[0];
  // `e` on the focused row (or a link in it): Done, as in an inbox.
  const onKeyDown = (event: KeyboardEvent<HTMLLIElement>) => {
    if (event.key !== "e" || event.ctrlKey || event.metaKey || event.altKey) return;
    if ((event.target as HTMLElement).closest("input, textarea, select, summary, [role=menu]")) return;
    event.preventDefault();
    done.current?.requestSubmit();
  };
  return (
    <li
      data-testid="attention-thread"
      data-handoff-id={thread.handoffId}
      tabIndex={0}
      onKeyDown={onKeyDown}
      aria-label={`${thread.title}: ${thread.sides.map((side) => `${countsOf(side)} for ${side.side}`).join("; ")}`}
      className="flex min-w-0 flex-col gap-2 py-3 first:pt-0 last:pb-0 focus:outline-2 focus:outline-offset-2 focus:outline-indigo-500 sm:flex-row sm:items-start sm:justify-between"
    >
      <div className="flex min-w-0 flex-col gap-1">
        <Link href={`/handoffs/${thread.handoffId}?as=${first.side}&entry=${first.openAt}#entry-${first.openAt}`} className="font-medium break-words text-indigo-700 hover:underline">
          {thread.title}
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
            <span data-testid="question-excerpt">{latestQuestion.excerpt}</span>
          </p>
        )}
      </div>
      <div className="flex shrink-0 items-center gap-1">
        <MarkForm thread={thread} kind="done" label="Done" onMarked={onMarked} formRef={done} />
        <SnoozeMenu thread={thread} onMarked={onMarked} />
      </div>
    </li>
  );
}

function UndoForm({ thread, onUndone }: { thread: ThreadAttention; onUndone: () => void }) {
  const [state, formAction, pending] = useActionState(unmarkAttentionAction, idleFormState);
  useEffect(() => {
    if (state.status === "success") onUndone();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per success
  }, [state.successAt]);
  return (
    <form action={formAction}>
      <input type="hidden" name="handoffId" value={thread.handoffId} />
      <button type="submit" disabled={pending} className="font-semibold text-indigo-700 underline">
        Undo
      </button>
    </form>
  );
}

/**
 * "Needs you now": one row per thread, newest first, with Done (`e`) and Snooze. A marked row
 * leaves the list at once (the server keeps the mark per operator and side); Undo brings it back.
 */
export function AttentionThreads({ threads }: { threads: ThreadAttention[] }) {
  const router = useRouter();
  const [marked, setMarked] = useState<ThreadAttention | null>(null);
  // Hidden at once, until the server's next list (which leaves it out) arrives.
  const [hidden, setHidden] = useState<{ id: string; from: ThreadAttention[] } | null>(null);
  const shown = threads.filter((thread) => hidden?.from !== threads || thread.handoffId !== hidden.id);
  const onMarked = (thread: ThreadAttention) => {
    setMarked(thread);
    setHidden({ id: thread.handoffId, from: threads });
    router.refresh();
  };
  return (
    <>
      {marked && (
        <p role="status" className="flex flex-wrap items-center gap-2 rounded-md bg-slate-100 px-3 py-2 text-sm text-slate-800">
          <span className="min-w-0 break-words">“{marked.title}” is off the list.</span>
          <UndoForm
            thread={marked}
            onUndone={() => {
              setMarked(null);
              router.refresh();
            }}
          />
        </p>
      )}
      {shown.length > 0 && <ul className="flex flex-col divide-y divide-slate-100">{shown.map((thread) => <ThreadRow key={thread.handoffId} thread={thread} onMarked={onMarked} />)}</ul>}
    </>
  );
}
