"use client";

import { useActionState, useEffect, useRef } from "react";
import { registerAgentAction } from "@/app/agents/actions";
import { keepingUnsent } from "@/components/forms/drafts";
import { buttonClass } from "@/components/ui/button";
import { Field, inputClass } from "@/components/ui/field";
import { MAX_NAME_LENGTH, MAX_PERSONA_SLUG_LENGTH } from "@/lib/agents/schemas";
import { focusFirstInvalid, idleFormState } from "@/lib/form-state";
import { MAX_PROJECT_LENGTH } from "@/lib/handoffs/schemas";

type TextField = { name: string; label: string; hint: string; required?: boolean; mono?: boolean; maxLength: number };

const FIELDS: TextField[] = [
  { name: "personaSlug", label: "Persona", hint: "A slug such as developer-con-1: lowercase letters and digits joined by single hyphens.", required: true, mono: true, maxLength: MAX_PERSONA_SLUG_LENGTH },
  { name: "name", label: "Name (optional)", hint: "How the dashboard shows it; defaults to the persona.", maxLength: MAX_NAME_LENGTH },
  { name: "project", label: "Project (optional)", hint: "A tag such as baton: lowercase letters, digits, _ or -.", mono: true, maxLength: MAX_PROJECT_LENGTH },
  { name: "tmuxTarget", label: "tmux target (optional)", hint: "Where it runs, as session:window.pane (e.g. work:2.0), for injection prompts.", mono: true, maxLength: 140 },
  { name: "sessionId", label: "Session id (optional)", hint: "Its own session UUID if it has one (e.g. Claude Code's); a new one is made otherwise.", mono: true, maxLength: 36 },
];

export function RegisterAgentForm() {
  const [state, formAction, pending] = useActionState(keepingUnsent(registerAgentAction), idleFormState);
  const errors = state.fieldErrors ?? {};
  const values = state.values ?? {};
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (state.status === "error") focusFirstInvalid(form.current);
  }, [state]);
  return (
    <form ref={form} action={formAction} noValidate className="flex max-w-2xl flex-col gap-4 rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-6">
      <div aria-live="polite" className="text-sm text-red-700">
        {state.status === "error" && state.message && (
          <p data-form-error tabIndex={-1}>
            {state.message}
          </p>
        )}
      </div>
      {FIELDS.map((field) => (
        <Field key={field.name} id={field.name} label={field.label} hint={field.hint} errors={errors[field.name]}>
          <input
            id={field.name}
            name={field.name}
            required={field.required}
            maxLength={field.maxLength}
            defaultValue={values[field.name]}
            aria-invalid={errors[field.name] ? true : undefined}
            aria-describedby={`${field.name}-hint ${field.name}-error`}
            autoComplete="off"
            spellCheck={false}
            className={`${inputClass} ${field.mono ? "font-mono" : ""}`}
          />
        </Field>
      ))}
      <div>
        <button type="submit" disabled={pending} className={buttonClass("primary")}>
          {pending ? "Registering…" : "Register agent"}
        </button>
      </div>
    </form>
  );
}
