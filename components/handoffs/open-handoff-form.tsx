"use client";

import { useRouter } from "next/navigation";
import { useActionState, useEffect, useRef, type FormEvent } from "react";
import { openHandoffAction } from "@/app/handoffs/actions";
import { buttonClass } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { focusFirstInvalid, idleFormState, withoutPreviousState } from "@/lib/form-state";
import { HANDOFF_ID_PATTERN } from "@/lib/handoffs/schemas";

/** What of a thread link says how to read it: the side (`as`) and where to open it (`entry`, the `#entry-N` anchor). */
const KEPT_PARAMS = ["as", "entry"];

/**
 * A link to a thread on this desk, as the path to open with its side and entry kept; null for
 * anything else (a bare ID, another origin: never followed).
 */
function threadLinkOnThisDesk(pasted: string): string | null {
  let url: URL;
  try {
    url = new URL(pasted.trim());
  } catch {
    return null;
  }
  const id = url.pathname.match(/^\/handoffs\/([^/]+)\/?$/)?.[1];
  if (url.origin !== window.location.origin || !id || !HANDOFF_ID_PATTERN.test(id)) return null;
  const kept = new URLSearchParams([...url.searchParams].filter(([name]) => KEPT_PARAMS.includes(name)));
  return `/handoffs/${id}${kept.size > 0 ? `?${kept}` : ""}${url.hash}`;
}

/**
 * The paste box: takes an ID however it was copied and opens the thread. A link to a thread on
 * this desk opens as it was (side and entry kept); the thread page says if it does not exist.
 */
export function OpenHandoffForm() {
  const [state, formAction, pending] = useActionState(withoutPreviousState(openHandoffAction), idleFormState);
  const router = useRouter();
  const form = useRef<HTMLFormElement>(null);
  const errors = state.fieldErrors?.ref;
  useEffect(() => {
    if (state.status === "error") focusFirstInvalid(form.current);
  }, [state]);
  const openDeskLink = (event: FormEvent<HTMLFormElement>) => {
    const link = threadLinkOnThisDesk(String(new FormData(event.currentTarget).get("ref") ?? ""));
    if (!link) return;
    event.preventDefault();
    router.push(link);
  };
  return (
    <section aria-labelledby="open-heading" className="mb-8 rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <h2 id="open-heading" className="text-base font-semibold text-slate-900">
        Open a handoff
      </h2>
      <form ref={form} action={formAction} onSubmit={openDeskLink} className="mt-3 flex flex-col gap-2 sm:flex-row sm:items-start">
        <div className="flex-1">
          <label htmlFor="open-ref" className="sr-only">
            Handoff ID or link
          </label>
          <input
            id="open-ref"
            name="ref"
            defaultValue={state.values?.ref}
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
