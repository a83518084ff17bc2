"use client";

import { useActionState } from "react";
import { pauseWebhookAction, redeliverAction, removeWebhookAction, resumeWebhookAction } from "@/app/settings/webhooks/actions";
import { buttonClass } from "@/components/ui/button";
import { RelativeTime } from "@/components/ui/relative-time";
import { idleFormState, type FormState } from "@/lib/form-state";
import type { DeliveryView, WebhookView } from "@/lib/webhooks/schemas";

type Action = (previous: FormState, formData: FormData) => Promise<FormState>;

function ActionButton({ action, id, label, busy, variant = "secondary", describe }: { action: Action; id: number; label: string; busy: string; variant?: "secondary" | "danger"; describe: string }) {
  const [state, formAction, pending] = useActionState(action, idleFormState);
  return (
    <form action={formAction} className="inline-flex items-center gap-2">
      <input type="hidden" name="id" value={id} />
      <button type="submit" disabled={pending} className={buttonClass(variant)} aria-label={describe}>
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

function Deliveries({ deliveries }: { deliveries: DeliveryView[] }) {
  if (deliveries.length === 0) return <p className="text-sm text-slate-600">No deliveries yet.</p>;
  return (
    <table className="w-full border-collapse text-left text-sm">
      <caption className="sr-only">Recent deliveries</caption>
      <thead>
        <tr className="border-b border-slate-200 text-slate-600">
          <th className="py-1.5 pr-3 font-medium">#</th>
          <th className="py-1.5 pr-3 font-medium">Event</th>
          <th className="py-1.5 pr-3 font-medium">Status</th>
          <th className="py-1.5 pr-3 font-medium">Last answer</th>
          <th className="py-1.5 pr-3 font-medium">Attempts</th>
          <th className="py-1.5 pr-3 font-medium">Queued</th>
          <th className="py-1.5 font-medium">
            <span className="sr-only">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {deliveries.map((delivery) => (
          <tr key={delivery.id} className="border-b border-slate-100" data-testid="webhook-delivery">
            <td className="py-1.5 pr-3 font-mono">{delivery.id}</td>
            <td className="py-1.5 pr-3 font-mono">{delivery.event}</td>
            <td className="py-1.5 pr-3">
              <span className={`rounded px-1.5 py-0.5 text-xs font-medium ${STATUS_STYLE[delivery.status]}`}>{delivery.status}</span>
            </td>
            <td className="py-1.5 pr-3">
              {delivery.lastStatus ?? (delivery.lastError ? "no answer" : "–")}
              {delivery.lastResponseMs !== null && <span className="text-slate-600"> in {delivery.lastResponseMs} ms</span>}
              {delivery.lastError && <span className="block text-xs text-red-700">{delivery.lastError}</span>}
            </td>
            <td className="py-1.5 pr-3">
              {delivery.attempts}
              {delivery.status === "pending" && delivery.attempts > 0 && (
                <span className="block text-xs text-slate-600">
                  next <RelativeTime iso={delivery.nextAttemptAt} />
                </span>
              )}
            </td>
            <td className="py-1.5 pr-3">
              <RelativeTime iso={delivery.createdAt} />
            </td>
            <td className="py-1.5">
              <ActionButton action={redeliverAction} id={delivery.id} label="Redeliver" busy="Queueing…" describe={`Redeliver delivery ${delivery.id}`} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function WebhookList({ hooks }: { hooks: { hook: WebhookView; deliveries: DeliveryView[] }[] }) {
  if (hooks.length === 0) return <p className="text-sm text-slate-600">No webhooks yet. Add one above, or with `npx baton webhook add &lt;url&gt; --events question.asked`.</p>;
  return (
    <ul className="flex flex-col gap-4">
      {hooks.map(({ hook, deliveries }) => (
        <li key={hook.id} className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm" data-testid="webhook">
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
              <ActionButton action={removeWebhookAction} id={hook.id} label="Delete" busy="Deleting…" variant="danger" describe={`Delete ${hook.url}`} />
            </div>
          </div>
          <Deliveries deliveries={deliveries} />
        </li>
      ))}
    </ul>
  );
}
