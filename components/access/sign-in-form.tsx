"use client";

import { useState } from "react";
import { buttonClass } from "@/components/ui/button";
import { Field, inputClass } from "@/components/ui/field";
import { sameOriginPath } from "@/lib/same-origin-path";

/** Exchanges a pasted operator token for a session cookie at /api/session, then goes on to `next`. */
export function SignInForm({ next }: { next: string }) {
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(formData: FormData) {
    setPending(true);
    setError(null);
    const response = await fetch("/api/session", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: formData.get("token") }),
    });
    if (response.ok) {
      // A full navigation, so every server component renders with the new session.
      // Resolved again here: the page resolved it, but only this line navigates.
      window.location.assign(sameOriginPath(next));
      return;
    }
    const body = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
    setError(body?.error?.message ?? `sign-in failed (${response.status})`);
    setPending(false);
  }

  return (
    <form action={submit} className="flex max-w-xl flex-col gap-4 rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-6">
      <Field id="token" label="Token" errors={error ? [error] : undefined} hint="It starts with baton_. It is sent once and kept only as a hash.">
        <input
          id="token"
          name="token"
          type="password"
          required
          autoComplete="off"
          aria-invalid={error ? true : undefined}
          aria-describedby="token-hint token-error"
          className={`${inputClass} font-mono`}
        />
      </Field>
      <div>
        <button type="submit" disabled={pending} className={buttonClass("primary")}>
          {pending ? "Signing in…" : "Sign in"}
        </button>
      </div>
    </form>
  );
}
