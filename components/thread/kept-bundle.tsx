import { ContinueFromBundle } from "@/components/formats/continue-from-bundle";
import { Markdown } from "@/components/ui/markdown";
import { CopyButton } from "@/components/ui/copy-button";
import { buttonClass } from "@/components/ui/button";
import type { BundleReading } from "@/lib/dashboard/read-kept-bundle";
import type { HandoffView } from "@/lib/handoffs/views";

/** Sections of Baton's summaries that carry what matters most, shown with a colour of their own. */
const SECTION_TONES: Record<string, string> = {
  "Latest decision": "border-violet-300 bg-violet-50",
  "Open questions": "border-amber-300 bg-amber-50",
};

/** The summary's lead without its first line when that is the thread's title again (the page's heading says it). */
function leadWithoutTitle(lead: string, title: string): string {
  const [first, ...rest] = lead.split("\n");
  return first.replace(/^#+\s*/, "").trim() === title.trim() ? rest.join("\n").trim() : lead;
}

/**
 * A completed thread's kept bundle, read as the thread it summarises: the latest decision, the
 * open questions, then the entries by type; its ID to copy, a download, and a way to go on.
 */
export function KeptBundle({ reading, handoff }: { reading: BundleReading; handoff: HandoffView }) {
  const id = reading.artifactId;
  return (
    <section data-testid="kept-bundle" aria-labelledby="kept-bundle-heading" className="mb-6 flex flex-col gap-4 rounded-lg border border-slate-300 bg-white p-4 shadow-sm sm:p-5">
      <div className="flex flex-col gap-2">
        <h2 id="kept-bundle-heading" className="text-lg font-semibold text-slate-900">
          What the thread said when it closed
        </h2>
        <p className="text-sm text-slate-700">
          A context bundle of the thread was kept before its entries were wiped. Its ID, to paste into <em>Import</em> here or in
          another Baton:
        </p>
        <div className="flex flex-wrap items-center gap-2">
          <code data-testid="kept-bundle-id" className="min-w-0 rounded bg-slate-100 px-2 py-1 font-mono text-xs break-all text-slate-800">
            {id}
          </code>
          <CopyButton text={id} label="Copy bundle ID" />
          <a href={`/api/artifacts/${id}?download=1`} download className={buttonClass("secondary")}>
            Download bundle
          </a>
          <a href={`/api/artifacts/${id}`} className="text-sm text-indigo-700 underline">
            Raw JSON
          </a>
        </div>
      </div>
      {reading.status === "unreadable" ? (
        <p role="note" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
          The bundle cannot be read: {reading.problem}
        </p>
      ) : (
        <div data-testid="kept-bundle-summary" className="flex flex-col gap-3">
          {reading.lead && <Markdown>{leadWithoutTitle(reading.lead, handoff.title)}</Markdown>}
          {reading.sections.map((section) => (
            <section key={section.heading} aria-label={section.heading} className={`rounded-md border p-3 ${SECTION_TONES[section.heading] ?? "border-slate-200 bg-slate-50"}`}>
              <h3 className="mb-1 text-sm font-semibold text-slate-900">{section.heading}</h3>
              <Markdown>{section.markdown}</Markdown>
            </section>
          ))}
          {reading.files.length > 0 && (
            <div className="text-sm text-slate-700">
              <h3 className="font-semibold text-slate-900">Files it names</h3>
              <ul className="mt-1 flex flex-wrap gap-2">
                {reading.files.map((file) => (
                  <li key={file}>
                    <code className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs break-all">{file}</code>
                  </li>
                ))}
              </ul>
            </div>
          )}
        </div>
      )}
      <div className="border-t border-slate-200 pt-4">
        <ContinueFromBundle artifactId={id} parentId={handoff.id} title={handoff.title} project={handoff.project} />
      </div>
    </section>
  );
}
