"use client";

import { useRouter } from "next/navigation";
import { forgetAllDrafts } from "@/components/forms/drafts";
import { buttonClass } from "@/components/ui/button";

/** Ends the dashboard session (DELETE /api/session), forgets this browser's drafts and returns to the sign-in page. */
export function SignOutButton({ name }: { name: string }) {
  const router = useRouter();
  async function signOut() {
    await fetch("/api/session", { method: "DELETE" });
    forgetAllDrafts();
    router.replace("/sign-in");
    router.refresh();
  }
  return (
    <span className="flex items-center gap-2 text-sm text-slate-600">
      <span>
        Signed in as <span className="font-mono text-slate-900">{name}</span>
      </span>
      <button type="button" onClick={signOut} className={buttonClass("ghost")}>
        Sign out
      </button>
    </span>
  );
}
