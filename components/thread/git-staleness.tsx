import { Badge } from "@/components/ui/badge";
import { describeRecorded, type GitReport } from "@/lib/git/types";

/**
 * Where a handoff (or a shift document) stands in git: a *stale* badge and the same block the
 * models read, when the repository is on this machine and has moved on; otherwise a quiet line
 * with what the writer reported. Nothing when no git state was recorded.
 */
export function GitStaleness({ report, subject = "handoff" }: { report: GitReport | null; subject?: string }) {
  if (!report) return null;
  if (report.staleness) {
    return (
      <section data-testid="git-staleness" aria-label="Where this stands in git" className="mb-4 rounded border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950">
        <Badge tone="amber" title={`The repository moved on since this ${subject} was written`}>
          stale
        </Badge>{" "}
        <span data-testid="git-staleness-block" className="break-words">
          {report.staleness.block}
        </span>
      </section>
    );
  }
  return (
    <p data-testid="git-recorded" className="mb-4 text-sm text-slate-600 break-words">
      {describeRecorded(report.recorded)}
      {report.compared ? ` The repository on this machine has not moved on since.` : ""}
    </p>
  );
}
