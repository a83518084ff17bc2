import type { QualityWarning } from "@/lib/formats/types";

/** Quality warnings (seed 002's anti-patterns): what the next agent will miss. They never block. */
export function WarningList({ warnings }: { warnings: QualityWarning[] }) {
  if (warnings.length === 0) return null;
  return (
    <div role="note" aria-label="Quality warnings" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950">
      <p className="font-semibold">
        {warnings.length} quality {warnings.length === 1 ? "warning" : "warnings"}: the next agent may miss something
      </p>
      <ul data-testid="quality-warnings" className="mt-1 flex list-disc flex-col gap-1 pl-5">
        {warnings.map((warning) => (
          <li key={`${warning.code}:${warning.field}`} data-code={warning.code}>
            <code className="font-mono">{warning.field}</code>: {warning.message}
          </li>
        ))}
      </ul>
    </div>
  );
}
