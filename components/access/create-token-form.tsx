"use client";

import { useActionState, useEffect, useRef } from "react";
import { createTokenAction, type CreateTokenState } from "@/app/settings/tokens/actions";
import { buttonClass } from "@/components/ui/button";
import { Field, FieldMessages, inputClass } from "@/components/ui/field";
import { ShownOnce } from "@/components/ui/shown-once";
import { MAX_TOKEN_NAME_LENGTH, ROLE_LABELS, ROLES } from "@/lib/auth/schemas";
import { focusFirstInvalid, withoutPreviousState } from "@/lib/form-state";

const initial: CreateTokenState = { status: "idle" };

export function CreateTokenForm() {
  const [state, formAction, pending] = useActionState(withoutPreviousState(createTokenAction), initial);
  const errors = state.fieldErrors ?? {};
  const invalid = (field: string) => (errors[field] ? true : undefined);
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (state.status === "error") focusFirstInvalid(form.current);
  }, [state]);
  return (
    <section aria-labelledby="create-token" className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-6">
      <h2 id="create-token" className="mb-3 text-base font-semibold text-slate-900">
        Create a token
      </h2>
      <form ref={form} action={formAction} className="flex flex-col gap-4" noValidate>
        <div data-form-error tabIndex={-1}>
          <FieldMessages messages={state.status === "error" && state.message ? [state.message] : []} />
        </div>
        <Field id="token-name" label="Name" errors={errors.name} hint="Who uses it, e.g. claude-code-laptop: lowercase letters, digits, '.', '_' or '-'.">
          <input
            id="token-name"
            name="name"
            required
            maxLength={MAX_TOKEN_NAME_LENGTH}
            defaultValue={state.values?.name}
            aria-invalid={invalid("name")}
            aria-describedby="token-name-hint token-name-error"
            className={`${inputClass} font-mono sm:w-80`}
          />
        </Field>
        <fieldset className="flex flex-col gap-1">
          <legend className="text-sm font-medium text-slate-800">Role</legend>
          {ROLES.map((role) => (
            <label key={role} className="flex items-center gap-2 text-sm">
              <input
                type="radio"
                name="role"
                value={role}
                defaultChecked={(state.values?.role ?? "agent") === role}
                aria-describedby="token-role-error"
              />
              {ROLE_LABELS[role]}
            </label>
          ))}
          <FieldMessages id="token-role-error" messages={errors.role} />
        </fieldset>
        <div>
          <button type="submit" disabled={pending} className={buttonClass("primary")}>
            {pending ? "Creating…" : "Create token"}
          </button>
        </div>
      </form>
      <div aria-live="polite">
        {state.status === "success" && state.token && (
          <ShownOnce message={`Token “${state.name}”: copy it now, it is not shown again.`} value={state.token} testId="new-token" copyLabel="Copy token" />
        )}
      </div>
    </section>
  );
}
