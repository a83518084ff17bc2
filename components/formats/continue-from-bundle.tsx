"use client";

import { useActionState } from "react";
import { importArtifactAction } from "@/app/import/actions";
import { buttonClass } from "@/components/ui/button";
import { Field, FieldMessages, inputClass } from "@/components/ui/field";
import { idleFormState, withoutPreviousState } from "@/lib/form-state";
import { MAX_PROJECT_LENGTH, MAX_TITLE_LENGTH } from "@/lib/handoffs/schemas";

/** The title a continuation starts with: the closed thread's, marked as its continuation (the operator may change it). */
function continuationTitle(title: string): string {
  const suffix = " (continued)";
  return title.endsWith(suffix) || title.length + suffix.length > MAX_TITLE_LENGTH ? title : `${title}${suffix}`;
}

/** Imports a stored bundle as a new child thread, with a title and project tag the operator can edit, and opens it. */
export function ContinueFromBundle({ artifactId, parentId, title, project }: { artifactId: string; parentId: string; title: string; project: string | null }) {
  const [state, formAction, pending] = useActionState(withoutPreviousState(importArtifactAction), idleFormState);
  const errors = state.fieldErrors ?? {};
  // What is not about a field (a missing or damaged bundle) is said under the fields.
  const otherErrors = Object.entries(errors)
    .filter(([field]) => field !== "title" && field !== "project")
    .flatMap(([, messages]) => messages);
  return (
    <form action={formAction} noValidate className="flex flex-col gap-3" aria-labelledby="continue-heading">
      <h3 id="continue-heading" className="text-sm font-semibold text-slate-900">
        Continue the work in a new thread
      </h3>
      <input type="hidden" name="artifactId" value={artifactId} />
      <input type="hidden" name="parentId" value={parentId} />
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-[minmax(0,3fr)_minmax(0,1fr)]">
        <Field id="continue-title" label="Title" errors={errors.title}>
          <input
            id="continue-title"
            name="title"
            required
            maxLength={MAX_TITLE_LENGTH}
            defaultValue={state.values?.title ?? continuationTitle(title)}
            aria-invalid={errors.title ? true : undefined}
            aria-describedby="continue-title-error"
            className={inputClass}
          />
        </Field>
        <Field id="continue-project" label="Project (optional)" errors={errors.project}>
          <input
            id="continue-project"
            name="project"
            maxLength={MAX_PROJECT_LENGTH}
            defaultValue={state.values?.project ?? project ?? ""}
            autoComplete="off"
            spellCheck={false}
            aria-invalid={errors.project ? true : undefined}
            aria-describedby="continue-project-error"
            className={`${inputClass} font-mono`}
          />
        </Field>
      </div>
      <FieldMessages messages={otherErrors} />
      <div>
        <button type="submit" disabled={pending} className={buttonClass("primary")}>
          {pending ? "Starting…" : "Continue in a new thread"}
        </button>
      </div>
    </form>
  );
}
