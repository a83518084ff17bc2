import type { ReactNode } from "react";

/** One group of "Needs you now" (components/dashboard/attention-view.tsx): a titled box with its count. */
export function AttentionGroup({ id, title, count, children }: { id: string; title: string; count: number; children: ReactNode }) {
  return (
    <section aria-labelledby={`${id}-heading`} data-testid={`attention-${id}`} className="flex min-w-0 flex-col gap-2 rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <h3 id={`${id}-heading`} className="text-sm font-semibold text-slate-900">
        {title} <span className="font-normal text-slate-600">({count})</span>
      </h3>
      {children}
    </section>
  );
}
