"use client";

import { useActionState, useRef } from "react";
import { pauseWebhookAction, redeliverAction, removeWebhookAction, resumeWebhookAction } from "@/app/settings/webhooks/actions";
import { buttonClass } from "@/components/ui/button";
import { CONFIRM_ACTION_BUTTON, ConfirmAction } from "@/components/ui/confirm-action";
import { RelativeTime } from "@/components/ui/relative-time";
import { useFocusOutlivesRows } from "@/components/ui/use-focus-outlives-rows";
import { idleFormState, withoutPreviousState, type FormState } from "@/lib/form-state";
import type { DeliveryView, WebhookView } from "@/lib/webhooks/schemas";

type Action = (previous: FormState, formData: FormData) => Promise<FormState>;

function ActionButton({ action, id, label, busy, describe }: { action: Action; id: number; label: string; busy: string; describe: string }) {
  const [state, formAction, pending] = useActionState(withoutPreviousState(action), idleFormState);
  return (
    <form action={formAction} className="inline-flex items-center gap-2">
      <input type="hidden" name="id" value={id} />
      <button type="submit" disabled={pending} className={buttonClass("secondary")} aria-label={describe}>
        {pending ? busy : label}
      </button>
      <span aria-live="polite" className="text-sm text-red-700">
        {state.status === "error" && state.message}
      </span>
    </form>
  );
}

const STATUS_STYLE: Record<DeliveryView["status"], string> = {
  delivered: "bg-emerald-50 text-emerald-800",
  pending: "bg-amber-50 text-amber-900",
  failed: "bg-red-50 text-red-800",
};

/** The latest deliveries, one line each that wraps on a phone (a seven-column table did not fit 390 px). */
function Deliveries({ deliveries }: { deliveries: DeliveryView[] }) {
  if (deliveries.length === 0) return <p className="text-sm text-slate-600">No deliveries yet.</p>;
  return (
    <div>
      <h3 className="mb-1 text-sm font-medium text-slate-700">Recent deliveries</h3>
      <ul className="flex flex-col divide-y divide-slate-100 text-sm">
        {deliveries.map((delivery) => (
          <li key={delivery.id} data-testid="webhook-delivery" className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2">
            <span className="font-mono text-xs text-slate-600">#{delivery.id}</span>
            <span className="font-mono break-all">{delivery.event}</span>
            <span className={`rounded px-1.5 py-0.5 text-xs font-medium ${STATUS_STYLE[delivery.status]}`}>{delivery.status}</span>
            <span className="min-w-0 break-words">
              <span>
                {delivery.lastStatus ?? (delivery.lastError ? "no answer" : "not sent yet")}
                {delivery.lastResponseMs !== null && <span className="text-slate-600"> in {delivery.lastResponseMs} ms</span>}
              </span>
              {delivery.lastError && <span className="block text-xs text-red-700">{delivery.lastError}</span>}
            </span>
            <span className="text-xs text-slate-600">
              {delivery.attempts} {delivery.attempts === 1 ? "attempt" : "attempts"}
              {delivery.status === "pending" && delivery.attempts > 0 && (
                <>
                  , next <RelativeTime iso={delivery.nextAttemptAt} />
                </>
              )}
              , queued <RelativeTime iso={delivery.createdAt} />
            </span>
            <span className="ml-auto">
              <ActionButton action={redeliverAction} id={delivery.id} label="Redeliver" busy="Queueing…" describe={`Redeliver delivery ${delivery.id}`} />
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Where focus goes when the last webhook is deleted. */
const NO_WEBHOOKS_ID = "no-webhooks";

/**
 * `command`: how Baton's commands run on the server (lib/paths.mjs batonCommand), for the hint. A
 * deleted webhook leaves: focus goes to the next one's Delete, or to the empty list's words.
 */
export function WebhookList({ hooks, command }: { hooks: { hook: WebhookView; deliveries: DeliveryView[] }[]; command: string }) {
  const list = useRef<HTMLUListElement>(null);
  const focusKeeping = useFocusOutlivesRows(
    list,
    hooks.map(({ hook }) => String(hook.id)),
    { keyAttribute: "data-row-key", focusIn: CONFIRM_ACTION_BUTTON, fallbackId: NO_WEBHOOKS_ID },
  );
  if (hooks.length === 0) {
    return (
      <p id={NO_WEBHOOKS_ID} tabIndex={-1} className="text-sm text-slate-600">
        No webhooks yet. Add one above, or on the server with <code className="font-mono">{command} webhook add URL --events question.asked</code>.
      </p>
    );
  }
  return (
    <ul ref={list} {...focusKeeping} className="flex flex-col gap-4">
      {hooks.map(({ hook, deliveries }) => (
        <li key={hook.id} data-row-key={hook.id} className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm" data-testid="webhook">
          <div className="mb-3 flex flex-wrap items-center gap-3">
            <span className="font-mono text-sm break-all">{hook.url}</span>
            {hook.status === "paused" ? (
              <span className="rounded bg-red-50 px-1.5 py-0.5 text-xs font-medium text-red-800">paused{hook.consecutiveFailures ? ` after ${hook.consecutiveFailures} failures in a row` : ""}</span>
            ) : (
              <span className="rounded bg-emerald-50 px-1.5 py-0.5 text-xs font-medium text-emerald-800">active</span>
            )}
            <span className="text-xs text-slate-600">
              {hook.events.join(", ")}
              {hook.types.length > 0 && ` (entry types: ${hook.types.join(", ")})`}
            </span>
            <div className="ml-auto flex flex-wrap gap-2">
              {hook.status === "paused" ? (
                <ActionButton action={resumeWebhookAction} id={hook.id} label="Resume" busy="Resuming…" describe={`Resume ${hook.url}`} />
              ) : (
                <ActionButton action={pauseWebhookAction} id={hook.id} label="Pause" busy="Pausing…" describe={`Pause ${hook.url}`} />
              )}
              <ConfirmAction
                action={removeWebhookAction}
                fields={{ id: hook.id }}
                label="Delete"
                describe={`Delete ${hook.url}`}
                title="Delete this webhook?"
                confirmLabel="Delete webhook"
                busyLabel="Deleting…"
              >
                <span className="font-mono break-all">{hook.url}</span> gets no more events, and its delivery log goes with it. Pause it
                instead to keep both.
              </ConfirmAction>
            </div>
          </div>
          <Deliveries deliveries={deliveries} />
        </li>
      ))}
    </ul>
  );
}
