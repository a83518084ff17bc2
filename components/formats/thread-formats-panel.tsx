import Link from "next/link";
import { RelativeTime } from "@/components/ui/relative-time";
import type { Provenance } from "@/lib/formats/get-provenance";
import { FORMAT_LABELS } from "@/lib/formats/types";
import { ContinueFromBundle } from "./continue-from-bundle";
import { ExportMenu } from "./export-menu";
import { MetadataList } from "./metadata-list";
import { WarningList } from "./warning-list";

function ThreadLink({ id, title }: { id: string; title: string }) {
  return (
    <Link href={`/handoffs/${id}`} className="font-medium text-indigo-700 underline break-words">
      {title}
    </Link>
  );
}

/** Where the thread came from, its quality warnings, links to parent and children, exports and the kept bundle. */
export function ThreadFormatsPanel({ handoffId, provenance }: { handoffId: string; provenance: Provenance }) {
  const { source, parent, children, keptBundle, artifacts } = provenance;
  const canExport = provenance.entryCount > 0 || source !== null;
  const exported = artifacts.filter((artifact) => artifact.purpose === "export");
  return (
    <section aria-label="Source and exports" className="mb-4 flex flex-col gap-3 rounded-lg border border-slate-200 bg-white p-4 text-sm shadow-sm">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div className="flex min-w-0 flex-col gap-1 text-slate-700">
          {source ? (
            <p data-testid="provenance">
              Imported from <strong>{FORMAT_LABELS[source.format]}</strong>
              {source.fileName && (
                <>
                  {" "}
                  file <code className="font-mono break-all">{source.fileName}</code>
                </>
              )}{" "}
              <RelativeTime iso={source.importedAt} />.
            </p>
          ) : (
            <p>Started in Baton.</p>
          )}
          {parent && (
            <p data-testid="parent-link">
              Continued from <ThreadLink id={parent.id} title={parent.title} /> (cut at #{parent.seq}).
            </p>
          )}
          {!parent && source?.parentThreadId && (
            <p>
              Source cut: <code className="font-mono break-all">{source.parentThreadId}</code> at #{source.parentSeq ?? "?"} (a thread of
              another system).
            </p>
          )}
          {children.length > 0 && (
            <div data-testid="child-links">
              Continued in:
              <ul className="list-disc pl-5">
                {children.map((child) => (
                  <li key={child.id}>
                    <ThreadLink id={child.id} title={child.title} /> (from the cut at #{child.seq}, {child.status})
                  </li>
                ))}
              </ul>
            </div>
          )}
        </div>
        {canExport && <ExportMenu handoffId={handoffId} canExportBundle={provenance.entryCount > 0} />}
      </div>
      {source && <MetadataList metadata={source.metadata} />}
      {source && <WarningList warnings={source.warnings} />}
      {keptBundle && (
        <div data-testid="kept-bundle" className="flex flex-col gap-2 rounded-md border border-slate-300 bg-slate-50 p-3">
          <p className="text-slate-800">
            A context bundle was kept when this handoff closed (cut at #{keptBundle.cutSeq}):{" "}
            <code className="font-mono text-xs break-all">{keptBundle.id}</code>
          </p>
          <div className="flex flex-wrap items-start gap-2">
            <a href={`/api/artifacts/${keptBundle.id}`} className="rounded-md px-3 py-1.5 font-semibold text-indigo-700 underline">
              Open the kept bundle
            </a>
            <a href={`/api/artifacts/${keptBundle.id}?download=1`} download className="rounded-md px-3 py-1.5 font-semibold text-indigo-700 underline">
              Download it
            </a>
            <ContinueFromBundle artifactId={keptBundle.id} parentId={handoffId} />
          </div>
        </div>
      )}
      {exported.length > 0 && (
        <details>
          <summary className="cursor-pointer text-slate-700">
            {exported.length} exported {exported.length === 1 ? "bundle" : "bundles"}
          </summary>
          <ul className="mt-1 flex flex-col gap-1">
            {exported.map((artifact) => (
              <li key={artifact.id}>
                <a href={`/api/artifacts/${artifact.id}`} className="font-mono text-xs text-indigo-700 underline break-all">
                  {artifact.id}
                </a>{" "}
                cut at #{artifact.cutSeq}, <RelativeTime iso={artifact.createdAt} />
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
