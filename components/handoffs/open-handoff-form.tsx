"use client";

import { useActionState } from "react";
import { openHandoffAction } from "@/app/handoffs/actions";
import { buttonClass } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { idleFormState } from "@/lib/form-state";

/** The paste box: takes an ID however it was copied and opens the thread. */
export function OpenHandoffForm() {
  const [state, formAction, pending] = useActionState(openHandoffAction, idleFormState);
  const errors = state.fieldErrors?.ref;
  return (
    <section aria-labelledby="open-heading" className="mb-8 rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <h2 id="open-heading" className="text-base font-semibold text-slate-900">
        Open a handoff
      </h2>
      <form action={formAction} className="mt-3 flex flex-col gap-2 sm:flex-row sm:items-start">
        <div className="flex-1">
          <label htmlFor="open-ref" className="sr-only">
            Handoff ID or link
          </label>
          <input
            id="open-ref"
            name="ref"
            defaultValue={state.values?.ref}
            key={state.values?.ref}
            placeholder="Paste a handoff ID or link: hof_…"
            autoComplete="off"
            spellCheck={false}
            aria-invalid={errors ? true : undefined}
            aria-describedby="open-ref-error"
            className={`${inputClass} font-mono`}
          />
          <div id="open-ref-error" aria-live="polite" className="mt-1 text-sm text-red-700">
            {errors?.map((error) => <p key={error}>{error}</p>)}
          </div>
        </div>
        <button type="submit" disabled={pending} className={buttonClass("primary", "sm:mt-0.5")}>
          {pending ? "Opening…" : "Open"}
        </button>
      </form>
    </section>
  );
}
