import Link from "next/link";
import type { ClientSide } from "@/lib/handoffs/schemas";

/**
 * Which side's unseen entries to highlight, and a jump to the first of them. Switching only
 * changes the view; nothing is marked read.
 */
export function ViewingAsSwitch({
  handoffId,
  viewingAs,
  newCount,
  firstNewNumber,
}: {
  handoffId: string;
  viewingAs: ClientSide;
  newCount: number;
  /** The first new entry this page holds, if any. */
  firstNewNumber: number | null;
}) {
  return (
    <div className="flex flex-wrap items-center gap-3">
      <nav aria-label="Viewing as" className="inline-flex rounded-md border border-slate-300 bg-white p-0.5 text-sm">
        {(["chat", "code"] as const).map((side) => (
          <Link
            key={side}
            href={`/handoffs/${handoffId}?as=${side}`}
            replace
            scroll={false}
            aria-current={side === viewingAs ? "page" : undefined}
            className={`rounded px-3 py-1 font-medium ${
              side === viewingAs ? "bg-indigo-600 text-on-accent" : "text-slate-700 hover:bg-slate-100"
            }`}
          >
            viewing as {side}
          </Link>
        ))}
      </nav>
      <p data-testid="new-count" aria-live="polite" className="text-sm text-slate-700">
        {newCount === 0 ? `Nothing new for ${viewingAs}` : `${newCount} new for ${viewingAs}`}
      </p>
      {firstNewNumber !== null && (
        <a href={`#entry-${firstNewNumber}`} className="text-sm font-medium text-indigo-700 underline">
          Jump to the first new entry
        </a>
      )}
    </div>
  );
}
