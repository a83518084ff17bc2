import { Markdown } from "@/components/ui/markdown";
import type { ShiftDocumentContent } from "@/lib/agents";

function notice(document: Exclude<ShiftDocumentContent, { status: "ok" }>): string {
  switch (document.status) {
    case "no path":
      return "This shift handoff has no document path.";
    case "outside":
      return `The stored path ${document.filePath} points outside the data folder, so it is not shown.`;
    case "missing":
      return `The document ${document.filePath} is no longer in the data folder (moved or deleted). The record and prompt are still here.`;
    case "unreadable":
      return `The document ${document.filePath} could not be read (${document.reason}).`;
  }
}

/** The shift document rendered as safe markdown, or a clear notice when it cannot be shown. */
export function ShiftDocumentView({ document }: { document: ShiftDocumentContent }) {
  if (document.status !== "ok") {
    return (
      <p role="note" data-testid="document-notice" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
        {notice(document)}
      </p>
    );
  }
  return (
    <div data-testid="shift-document" className="rounded-md border border-slate-200 bg-white p-4">
      <Markdown>{document.content}</Markdown>
    </div>
  );
}
