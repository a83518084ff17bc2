"use client";

import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from "react";
import { useLiveChanges, type LiveUpdate } from "@/components/live/use-live-changes";
import type { EntryView, HandoffView } from "@/lib/handoffs/views";
import { plainTextOf } from "@/lib/plain-text";
import { visibleBidiControls } from "@/lib/validation";

/**
 * Opt-in browser notifications (Notification API): a question waiting for a side that has not
 * seen it, from the change stream the pages use, and webhook deliveries that gave up. The
 * browser's permission is asked only when the operator clicks; the choice is kept per browser.
 */
const STORAGE_KEY = "baton.notifications";
const CHOICE_EVENT = "baton-notifications-choice";
const FAILED_POLL_MS = 10_000;

type Choice = "unsupported" | "off" | "on";

function subscribeChoice(onChange: () => void): () => void {
  window.addEventListener("storage", onChange);
  window.addEventListener(CHOICE_EVENT, onChange);
  return () => {
    window.removeEventListener("storage", onChange);
    window.removeEventListener(CHOICE_EVENT, onChange);
  };
}

function currentChoice(): Choice {
  if (typeof Notification === "undefined") return "unsupported";
  return Notification.permission === "granted" && localStorage.getItem(STORAGE_KEY) === "on" ? "on" : "off";
}

function saveChoice(on: boolean): void {
  if (on) localStorage.setItem(STORAGE_KEY, "on");
  else localStorage.removeItem(STORAGE_KEY);
  window.dispatchEvent(new Event(CHOICE_EVENT));
}

type Start = { changeSeq: number; attemptId: number };
type NotificationsState = { changeSeq: number; attemptId: number; failed: { id: number; url: string; event: string; lastError: string | null }[] };

function notify(title: string, body: string, tag: string, href: string): void {
  const notification = new Notification(title, { body, tag });
  notification.onclick = () => {
    window.focus();
    window.location.assign(href);
  };
}

/** One entry change: a question not yet seen by the side it waits for becomes a notification. */
async function notifyQuestion(handoffId: string, entrySeq: number): Promise<void> {
  const response = await fetch(`/api/handoffs/${encodeURIComponent(handoffId)}?after_seq=${entrySeq - 1}&limit=1`, { cache: "no-store" });
  if (!response.ok) return;
  const thread = (await response.json()) as { handoff: HandoffView; entries: EntryView[] };
  const entry = thread.entries.find((candidate) => candidate.seq === entrySeq);
  if (!entry || entry.type !== "question") return;
  const waitingFor = entry.fromClient === "chat" ? "code" : "chat";
  const seen = waitingFor === "chat" ? thread.handoff.chatLastSeen : thread.handoff.codeLastSeen;
  if (seen >= entry.seq) return;
  const text = visibleBidiControls(plainTextOf(entry.content, 160));
  notify(`Question for ${waitingFor}: ${visibleBidiControls(thread.handoff.title)}`, text, `baton-entry-${entry.seq}`, `/handoffs/${thread.handoff.id}`);
}

function Watcher({ start }: { start: Start }) {
  const attemptRef = useRef(start.attemptId);
  const onUpdate = useCallback((update: LiveUpdate) => {
    if (update === "unknown") return;
    for (const change of update) {
      if (change.subject === "entry" && change.action === "created" && change.handoffId && change.entrySeq !== null) {
        notifyQuestion(change.handoffId, change.entrySeq).catch(() => {
          // A thread that could not be read (closed meanwhile, offline) has nothing to announce.
        });
      }
    }
  }, []);
  useLiveChanges({ filter: { subjects: ["entry"] }, since: start.changeSeq, onUpdate });

  useEffect(() => {
    const timer = setInterval(async () => {
      try {
        const response = await fetch(`/api/notifications?after_attempt=${attemptRef.current}`, { cache: "no-store" });
        if (!response.ok) return;
        const state = (await response.json()) as NotificationsState;
        for (const failed of state.failed) {
          notify("Webhook delivery failed", `${failed.event} to ${failed.url}: ${failed.lastError ?? "gave up"}`, `baton-delivery-${failed.id}`, "/settings/webhooks");
        }
        attemptRef.current = state.attemptId;
      } catch {
        // Offline for a moment: the next poll catches up from the same delivery id.
      }
    }, FAILED_POLL_MS);
    return () => clearInterval(timer);
  }, []);
  return null;
}

export function BrowserNotifications() {
  // The server render knows neither the API nor this browser's choice: it renders nothing.
  const choice = useSyncExternalStore(subscribeChoice, currentChoice, () => "unsupported" as const);
  const on = choice === "on";
  const [start, setStart] = useState<Start | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    if (!on) return;
    let cancelled = false;
    fetch("/api/notifications", { cache: "no-store" })
      .then((response) => (response.ok ? (response.json() as Promise<Start>) : Promise.reject(new Error(`HTTP ${response.status}`))))
      .then((state) => !cancelled && setStart({ changeSeq: state.changeSeq, attemptId: state.attemptId }))
      .catch(() => !cancelled && setProblem("Notifications could not start; reload the page"));
    return () => {
      cancelled = true;
      setStart(null);
    };
  }, [on]);

  if (choice === "unsupported") return null;

  const toggle = async () => {
    setProblem(null);
    if (on) return saveChoice(false);
    const permission = await Notification.requestPermission();
    if (permission !== "granted") {
      setProblem("The browser blocked notifications for this site");
      return;
    }
    saveChoice(true);
  };

  return (
    <span className="flex items-center gap-2 text-sm">
      <button
        type="button"
        onClick={toggle}
        aria-pressed={on}
        data-testid="notifications-toggle"
        className={`rounded-md px-3 py-1.5 font-medium ${on ? "bg-indigo-50 text-indigo-800" : "text-slate-700 hover:bg-slate-100"}`}
      >
        {on ? "Notifications on" : "Notify me"}
      </button>
      {problem && (
        <span role="status" className="text-red-700">
          {problem}
        </span>
      )}
      {on && start && <Watcher start={start} />}
    </span>
  );
}
