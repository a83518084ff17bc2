"use client";

import { useActionState, useEffect, useRef } from "react";
import { createHandoffAction } from "@/app/handoffs/actions";
import { keepingUnsent, useDraft } from "@/components/forms/drafts";
import { NEW_HANDOFF_DRAFT } from "./new-handoff-draft";
import { buttonClass } from "@/components/ui/button";
import { Field, inputClass } from "@/components/ui/field";
import { focusFirstInvalid, idleFormState } from "@/lib/form-state";
import { MAX_PROJECT_LENGTH, MAX_TITLE_LENGTH, type ClientSide } from "@/lib/handoffs/schemas";

/** `defaultSide`: the side the caller counts as when it names none (lib/caller.ts defaultSideOf), checked first. */
export function NewHandoffForm({ defaultSide }: { defaultSide: ClientSide }) {
  // Success is a redirect to the new thread, whose banner forgets the drafts.
  const [state, formAction, pending] = useActionState(
    keepingUnsent(createHandoffAction),
    idleFormState,
  );
  const [title, setTitle] = useDraft(NEW_HANDOFF_DRAFT.title);
  const [content, setContent] = useDraft(NEW_HANDOFF_DRAFT.content);
  const errors = state.fieldErrors ?? {};
  const values = state.values ?? {};
  const invalid = (field: string) => (errors[field] ? true : undefined);
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (state.status === "error") focusFirstInvalid(form.current);
  }, [state]);
  return (
    <form ref={form} action={formAction} className="flex max-w-2xl flex-col gap-4 rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-6" noValidate>
      <div aria-live="polite" className="text-sm text-red-700">
        {state.status === "error" && state.message && (
          <p data-testid={state.unsent ? "not-sent" : undefined} data-form-error tabIndex={-1}>
            {state.message}
          </p>
        )}
      </div>
      <Field id="title" label="Title" errors={errors.title} hint={`A short description of the session, up to ${MAX_TITLE_LENGTH} characters.`}>
        <input
          id="title"
          name="title"
          required
          maxLength={MAX_TITLE_LENGTH}
          value={title}
          onChange={(event) => setTitle(event.target.value)}
          aria-invalid={invalid("title")}
          aria-describedby="title-hint title-error"
          className={inputClass}
        />
      </Field>
      <Field id="project" label="Project (optional)" errors={errors.project} hint="A tag such as hlg or dnd: lowercase letters, digits, _ or -.">
        <input
          id="project"
          name="project"
          maxLength={MAX_PROJECT_LENGTH}
          defaultValue={values.project}
          aria-invalid={invalid("project")}
          aria-describedby="project-hint project-error"
          className={`${inputClass} font-mono sm:w-64`}
        />
      </Field>
      <Field id="content" label="First context" errors={errors.content} hint="What was decided and what the other side needs to know. Markdown works.">
        <textarea
          id="content"
          name="content"
          required
          rows={8}
          value={content}
          onChange={(event) => setContent(event.target.value)}
          aria-invalid={invalid("content")}
          aria-describedby="content-hint content-error"
          className={`${inputClass} font-mono`}
        />
      </Field>
      <fieldset className="flex flex-col gap-1">
        <legend className="text-sm font-medium text-slate-800">Create as</legend>
        <div className="flex gap-4 text-sm">
          {(["chat", "code"] as const).map((side) => (
            <label key={side} className="flex items-center gap-2">
              <input type="radio" name="asClient" value={side} defaultChecked={(values.asClient ?? defaultSide) === side} />
              {side === "chat" ? "chat (decisions)" : "code (implementation)"}
            </label>
          ))}
        </div>
        <div aria-live="polite" className="text-sm text-red-700">
          {errors.asClient?.map((error) => <p key={error}>{error}</p>)}
        </div>
      </fieldset>
      <div>
        <button type="submit" disabled={pending} className={buttonClass("primary")}>
          {pending ? "Creating…" : state.unsent ? "Retry" : "Create handoff"}
        </button>
      </div>
    </form>
  );
}
