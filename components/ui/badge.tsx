import type { ReactNode } from "react";

const TONES = {
  slate: "bg-slate-100 text-slate-700 ring-slate-300",
  indigo: "bg-indigo-50 text-indigo-800 ring-indigo-200",
  green: "bg-emerald-50 text-emerald-800 ring-emerald-200",
  amber: "bg-amber-50 text-amber-900 ring-amber-300",
  red: "bg-red-50 text-red-800 ring-red-200",
  sky: "bg-sky-50 text-sky-800 ring-sky-200",
  violet: "bg-violet-50 text-violet-800 ring-violet-200",
} as const;

export type BadgeTone = keyof typeof TONES;

/** `wrap`: a badge that carries a sentence (a delivery's failure reason) wraps instead of widening the page. */
export function Badge({ tone = "slate", children, title, wrap = false }: { tone?: BadgeTone; children: ReactNode; title?: string; wrap?: boolean }) {
  return (
    <span
      title={title}
      className={`inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${
        wrap ? "max-w-full break-words whitespace-normal" : "whitespace-nowrap"
      } ${TONES[tone]}`}
    >
      {children}
    </span>
  );
}
