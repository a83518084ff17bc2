import { Markdown } from "@/components/ui/markdown";
import type { HandoffDocumentContent } from "@/lib/agents";

function notice(document: Exclude<HandoffDocumentContent, { status: "ok" }>): string {
  switch (document.status) {
    case "no path":
      return "This handoff has no document path.";
    case "outside":
      return `The stored path ${document.filePath} points outside the data folder, so it is not shown.`;
    case "missing":
      return `The document ${document.filePath} is no longer in the data folder (moved or deleted). The record and prompt are still here.`;
    case "unreadable":
      return `The document ${document.filePath} could not be read (${document.reason}).`;
  }
}

/** The handoff document rendered as safe markdown, or a clear notice when it cannot be shown. */
export function HandoffDocumentView({ document }: { document: HandoffDocumentContent }) {
  if (document.status !== "ok") {
    return (
      <p role="note" data-testid="document-notice" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
        {notice(document)}
      </p>
    );
  }
  return (
    <div data-testid="handoff-document" className="rounded-md border border-slate-200 bg-white p-4">
      <Markdown>{document.content}</Markdown>
    </div>
  );
}
