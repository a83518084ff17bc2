import type { Metadata } from "next";
import Link from "next/link";
import { buttonClass } from "@/components/ui/button";

/** The tab says so too: the layout's template makes it e.g. "(3) Handoff not found · Baton". */
export const metadata: Metadata = { title: "Handoff not found" };

export default function HandoffNotFound() {
  return (
    <div className="rounded-lg border border-slate-200 bg-white p-6">
      <h1 className="text-lg font-semibold text-slate-900">No such handoff</h1>
      <p className="mt-1 text-sm text-slate-700">
        There is no handoff at this address. Handoff IDs look like <code className="font-mono">hof_</code> followed by 21
        letters, digits, _ or -; check that the whole ID was copied.
      </p>
      <Link href="/" className={buttonClass("primary", "mt-4")}>
        All handoffs
      </Link>
    </div>
  );
}
