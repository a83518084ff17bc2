"use client";

import { useActionState, useEffect, useRef, type ReactNode } from "react";
import { createWebhookAction, type CreateWebhookState } from "@/app/settings/webhooks/actions";
import { buttonClass } from "@/components/ui/button";
import { Field, FieldMessages, inputClass } from "@/components/ui/field";
import { ShownOnce } from "@/components/ui/shown-once";
import { focusFirstInvalid, withoutPreviousState } from "@/lib/form-state";
import { ENTRY_TYPES, WEBHOOK_EVENT_LABELS, WEBHOOK_EVENTS } from "@/lib/webhooks/schemas";

/** A checkbox marked invalid is outlined red, as a text field's border turns red (inputClass). */
const choiceClass = "aria-[invalid=true]:outline-2 aria-[invalid=true]:outline-offset-1 aria-[invalid=true]:outline-red-500";

/** One box of a group of choices, kept as chosen after a refusal and marked with its group's errors. */
function ChoiceBox({ name, value, checked, errors, errorId, className, children }: { name: string; value: string; checked: boolean; errors: string[]; errorId: string; className: string; children: ReactNode }) {
  return (
    <label className={`flex items-center text-sm ${className}`}>
      <input
        type="checkbox"
        name={name}
        value={value}
        defaultChecked={checked}
        aria-invalid={errors.length > 0 ? true : undefined}
        aria-describedby={errorId}
        className={choiceClass}
      />
      {children}
    </label>
  );
}

const initial: CreateWebhookState = { status: "idle" };

export function CreateWebhookForm() {
  const [state, formAction, pending] = useActionState(withoutPreviousState(createWebhookAction), initial);
  const errors = state.fieldErrors ?? {};
  const eventErrors = Object.entries(errors).filter(([field]) => field.startsWith("events")).flatMap(([, messages]) => messages);
  const typeErrors = Object.entries(errors).filter(([field]) => field.startsWith("types")).flatMap(([, messages]) => messages);
  const chosen = state.chosen ?? { events: [], types: [] };
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (state.status === "error") focusFirstInvalid(form.current);
  }, [state]);
  return (
    <section aria-labelledby="add-webhook" className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-6">
      <h2 id="add-webhook" className="mb-3 text-base font-semibold text-slate-900">
        Add a webhook
      </h2>
      <form ref={form} key={state.successAt ?? 0} action={formAction} className="flex flex-col gap-4" noValidate>
        <div data-form-error tabIndex={-1}>
          <FieldMessages messages={state.status === "error" && state.message ? [state.message] : []} />
        </div>
        <Field id="webhook-url" label="URL" errors={errors.url} hint="http:// or https://; Baton never follows a redirect from it.">
          <input
            id="webhook-url"
            name="url"
            type="url"
            required
            defaultValue={state.values?.url}
            aria-invalid={errors.url ? true : undefined}
            aria-describedby="webhook-url-hint webhook-url-error"
            className={`${inputClass} font-mono sm:w-[32rem]`}
          />
        </Field>
        <fieldset className="flex flex-col gap-1">
          <legend className="text-sm font-medium text-slate-800">Events</legend>
          {WEBHOOK_EVENTS.map((event) => (
            <ChoiceBox key={event} name="events" value={event} checked={chosen.events.includes(event)} errors={eventErrors} errorId="webhook-events-error" className="gap-2">
              {WEBHOOK_EVENT_LABELS[event]}
            </ChoiceBox>
          ))}
          <FieldMessages id="webhook-events-error" messages={eventErrors} />
        </fieldset>
        <fieldset className="flex flex-col gap-1">
          <legend className="text-sm font-medium text-slate-800">entry.created only for these types (none checked: every type)</legend>
          <div className="flex flex-wrap gap-3">
            {ENTRY_TYPES.map((type) => (
              <ChoiceBox key={type} name="types" value={type} checked={chosen.types.includes(type)} errors={typeErrors} errorId="webhook-types-error" className="gap-1.5">
                {type}
              </ChoiceBox>
            ))}
          </div>
          <FieldMessages id="webhook-types-error" messages={typeErrors} />
        </fieldset>
        <div>
          <button type="submit" disabled={pending} className={buttonClass("primary")}>
            {pending ? "Adding…" : "Add webhook"}
          </button>
        </div>
      </form>
      <div aria-live="polite">
        {state.status === "success" && state.secret && (
          <ShownOnce
            message={`Webhook ${state.webhookId} added. Its signing secret: copy it now, it is not shown again.`}
            value={state.secret}
            testId="webhook-secret"
            copyLabel="Copy secret"
          />
        )}
      </div>
    </section>
  );
}
