"use client";

import { useActionState } from "react";
import { importArtifactAction } from "@/app/import/actions";
import { buttonClass } from "@/components/ui/button";
import { idleFormState } from "@/lib/form-state";

/** Imports a stored bundle as a new child thread and opens it. */
export function ContinueFromBundle({ artifactId, parentId }: { artifactId: string; parentId: string }) {
  const [state, formAction, pending] = useActionState(importArtifactAction, idleFormState);
  return (
    <form action={formAction} className="flex flex-col gap-1">
      <input type="hidden" name="artifactId" value={artifactId} />
      <input type="hidden" name="parentId" value={parentId} />
      <button type="submit" disabled={pending} className={buttonClass("secondary")}>
        {pending ? "Starting…" : "Continue in a new thread"}
      </button>
      <div aria-live="polite" className="text-sm text-red-700">
        {state.status === "error" && (state.fieldErrors ? Object.values(state.fieldErrors).flat().join("; ") : state.message)}
      </div>
    </form>
  );
}
