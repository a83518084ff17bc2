"use client";

import { useActionState } from "react";
import { addEntryAction } from "@/app/handoffs/actions";
import { buttonClass } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { idleFormState } from "@/lib/form-state";
import { ENTRY_TYPES, type ClientSide } from "@/lib/handoffs/schemas";
import { useRefreshAfterSuccess } from "./use-refresh-thread";

/** Post an entry as either side. Field errors show beside their fields; success clears the text. */
export function Composer({ handoffId, viewingAs }: { handoffId: string; viewingAs: ClientSide }) {
  const [state, formAction, pending] = useActionState(addEntryAction, idleFormState);
  useRefreshAfterSuccess(state, handoffId);
  const errors = state.fieldErrors ?? {};
  const values = state.values ?? {};
  return (
    <form
      key={state.successAt ?? "composer"}
      action={formAction}
      aria-labelledby="composer-heading"
      className="mt-6 flex flex-col gap-3 rounded-lg border border-slate-200 bg-white p-4 shadow-sm"
      noValidate
    >
      <h2 id="composer-heading" className="text-base font-semibold text-slate-900">
        Add an entry
      </h2>
      <input type="hidden" name="id" value={handoffId} />
      <div className="flex flex-col gap-3 sm:flex-row">
        <div className="flex flex-col gap-1">
          <label htmlFor="entry-type" className="text-sm font-medium text-slate-800">
            Type
          </label>
          <select id="entry-type" name="type" defaultValue={values.type ?? "progress"} className={`${inputClass} sm:w-40`}>
            {ENTRY_TYPES.map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
          </select>
          <div aria-live="polite" className="text-sm text-red-700">
            {errors.type?.map((error) => <p key={error}>{error}</p>)}
          </div>
        </div>
        <fieldset className="flex flex-col gap-1">
          <legend className="text-sm font-medium text-slate-800">Post as</legend>
          <div className="flex gap-4 py-2 text-sm">
            {(["chat", "code"] as const).map((side) => (
              <label key={side} className="flex items-center gap-2">
                <input type="radio" name="asClient" value={side} defaultChecked={(values.asClient ?? viewingAs) === side} />
                {side}
              </label>
            ))}
          </div>
        </fieldset>
      </div>
      <div className="flex flex-col gap-1">
        <label htmlFor="entry-content" className="text-sm font-medium text-slate-800">
          Content
        </label>
        <textarea
          id="entry-content"
          name="content"
          rows={4}
          defaultValue={state.status === "error" ? values.content : ""}
          aria-invalid={errors.content ? true : undefined}
          aria-describedby="entry-content-error"
          placeholder="Markdown works. Up to 64 KiB."
          className={`${inputClass} font-mono`}
        />
        <div id="entry-content-error" aria-live="polite" className="text-sm text-red-700">
          {errors.content?.map((error) => <p key={error}>{error}</p>)}
        </div>
      </div>
      <div className="flex flex-wrap items-center gap-3">
        <button type="submit" disabled={pending} className={buttonClass("primary")}>
          {pending ? "Posting…" : "Post entry"}
        </button>
        <p aria-live="polite" className={`text-sm ${state.status === "error" ? "text-red-700" : "text-emerald-800"}`}>
          {state.message}
        </p>
      </div>
      {state.notices && state.notices.length > 0 && (
        <div role="status" data-testid="redaction-notice" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
          <p className="font-medium">Secrets were redacted before the entry was stored:</p>
          <ul className="mt-1 list-disc pl-5">
            {state.notices.map((notice) => (
              <li key={notice}>{notice}</li>
            ))}
          </ul>
        </div>
      )}
    </form>
  );
}
