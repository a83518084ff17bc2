"use client";

import { useActionState } from "react";
import { createTokenAction, type CreateTokenState } from "@/app/settings/tokens/actions";
import { buttonClass } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { Field, inputClass } from "@/components/ui/field";
import { ROLE_LABELS, ROLES } from "@/lib/auth/schemas";

const initial: CreateTokenState = { status: "idle" };

export function CreateTokenForm() {
  const [state, formAction, pending] = useActionState(createTokenAction, initial);
  const errors = state.fieldErrors ?? {};
  return (
    <section aria-labelledby="create-token" className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-6">
      <h2 id="create-token" className="mb-3 text-base font-semibold text-slate-900">
        Create a token
      </h2>
      <form action={formAction} className="flex flex-col gap-4" noValidate>
        <div aria-live="polite" className="text-sm text-red-700">
          {state.status === "error" && state.message && <p>{state.message}</p>}
        </div>
        <Field id="token-name" label="Name" errors={errors.name} hint="Who uses it, e.g. claude-code-laptop: lowercase letters, digits, '.', '_' or '-'.">
          <input id="token-name" name="name" required maxLength={40} defaultValue={state.values?.name} aria-describedby="token-name-hint token-name-error" className={`${inputClass} font-mono sm:w-80`} />
        </Field>
        <fieldset className="flex flex-col gap-1">
          <legend className="text-sm font-medium text-slate-800">Role</legend>
          {ROLES.map((role) => (
            <label key={role} className="flex items-center gap-2 text-sm">
              <input type="radio" name="role" value={role} defaultChecked={(state.values?.role ?? "agent") === role} />
              {ROLE_LABELS[role]}
            </label>
          ))}
          <div aria-live="polite" className="text-sm text-red-700">
            {errors.role?.map((error) => <p key={error}>{error}</p>)}
          </div>
        </fieldset>
        <div>
          <button type="submit" disabled={pending} className={buttonClass("primary")}>
            {pending ? "Creating…" : "Create token"}
          </button>
        </div>
      </form>
      <div aria-live="polite">
        {state.status === "success" && state.token && (
          <div className="mt-4 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
            <p className="font-medium">Token “{state.name}”: copy it now, it is not shown again.</p>
            <div className="mt-2 flex flex-wrap items-center gap-2">
              <code data-testid="new-token" className="break-all rounded bg-white px-2 py-1 font-mono text-xs">
                {state.token}
              </code>
              <CopyButton text={state.token} label="Copy token" />
            </div>
          </div>
        )}
      </div>
    </section>
  );
}
