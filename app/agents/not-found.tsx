import type { Metadata } from "next";
import Link from "next/link";
import { buttonClass } from "@/components/ui/button";

/** The tab says so too: the layout's template makes it e.g. "(3) Not found · Baton". */
export const metadata: Metadata = { title: "Not found" };

export default function AgentsNotFound() {
  return (
    <div className="rounded-lg border border-slate-200 bg-white p-6">
      <h1 className="text-lg font-semibold text-slate-900">Page not found</h1>
      <p className="mt-1 text-sm text-slate-700">Nothing lives at this address under Agents. Start from the list of agents.</p>
      <Link href="/agents" className={buttonClass("primary", "mt-4")}>
        All agents
      </Link>
    </div>
  );
}
