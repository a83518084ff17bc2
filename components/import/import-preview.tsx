import { EntryTypeBadge } from "@/components/handoffs/handoff-badges";
import { Badge } from "@/components/ui/badge";
import { Markdown } from "@/components/ui/markdown";
import type { ImportPreview as Preview } from "@/lib/formats/preview-import";
import { FORMAT_LABELS } from "@/lib/formats/types";
import { MetadataList } from "@/components/formats/metadata-list";
import { WarningList } from "@/components/formats/warning-list";
import { visibleBidiControls } from "@/lib/validation";

/** Every validation error by field path, e.g. `current_story.progress_percent: must be 0–100`. */
export function FieldErrorList({ fieldErrors, title }: { fieldErrors: Record<string, string[]>; title: string }) {
  const lines = Object.entries(fieldErrors).flatMap(([field, messages]) => messages.map((message) => ({ field, message })));
  return (
    <div className="rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-900">
      <h2 className="font-semibold">{title}</h2>
      <ul data-testid="field-errors" className="mt-2 flex list-disc flex-col gap-1 pl-5">
        {lines.map(({ field, message }) => (
          <li key={`${field}:${message}`}>
            <code className="font-mono font-semibold break-all">{field}</code>: {message}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The thread an import will create, shown before anything is stored. */
export function ImportPreview({ preview }: { preview: Preview }) {
  if (!preview.ok) {
    const count = Object.values(preview.fieldErrors).flat().length;
    return <FieldErrorList fieldErrors={preview.fieldErrors} title={`${count} ${count === 1 ? "problem" : "problems"}: this document cannot be imported yet`} />;
  }
  return (
    <section aria-labelledby="preview-heading" className="flex flex-col gap-3 rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <div className="flex flex-wrap items-center gap-2 text-sm text-slate-700">
        <Badge tone="sky">{FORMAT_LABELS[preview.format]}</Badge>
        <span data-testid="detected-format">
          Detected {FORMAT_LABELS[preview.format]} ({preview.detectedBecause}).
        </span>
      </div>
      <h2 id="preview-heading" className="text-lg font-semibold text-slate-900 break-words">
        {visibleBidiControls(preview.title)}
      </h2>
      {preview.parent && (
        <p className="text-sm text-slate-700">
          Child of <code className="font-mono break-all">{preview.parent.threadId}</code> cut at{" "}
          {preview.parent.number === null ? `seq ${preview.parent.seq}` : `#${preview.parent.number}`}
          {preview.parent.title ? ` (“${visibleBidiControls(preview.parent.title)}” in this Baton)` : " (not a thread of this Baton)"}. The parent&apos;s
          entries are not copied; the summary is the new thread&apos;s base context.
        </p>
      )}
      <MetadataList metadata={preview.metadata} />
      <WarningList warnings={preview.warnings} />
      <h3 className="text-sm font-semibold text-slate-800">
        {preview.entries.length} {preview.entries.length === 1 ? "entry" : "entries"} will be created
      </h3>
      <ol aria-label="Entries to be created" className="flex flex-col gap-2">
        {preview.entries.map((entry, index) => (
          <li key={index} className="rounded-md border border-slate-200 p-3">
            <div className="mb-1 flex items-center gap-2 text-xs text-slate-600">
              <EntryTypeBadge type={entry.type} />
              <span>{entry.fromClient}</span>
              <span className="font-mono">from {entry.field}</span>
            </div>
            <Markdown>{entry.content}</Markdown>
          </li>
        ))}
      </ol>
    </section>
  );
}
