import type { Metadata } from "next";
import Link from "next/link";
import { buttonClass } from "@/components/ui/button";

/** The tab says so too: the layout's template makes it e.g. "(3) Agent not found · Baton". */
export const metadata: Metadata = { title: "Agent not found" };

export default function AgentNotFound() {
  return (
    <div className="rounded-lg border border-slate-200 bg-white p-6">
      <h1 className="text-lg font-semibold text-slate-900">No such agent</h1>
      <p className="mt-1 text-sm text-slate-700">
        There is no agent at this address. Agents are named by their integer id, their session UUID or the first 8 hex digits of
        the session id (e.g. <code className="font-mono">4b6f8a2c</code>).
      </p>
      <Link href="/agents" className={buttonClass("primary", "mt-4")}>
        All agents
      </Link>
    </div>
  );
}
