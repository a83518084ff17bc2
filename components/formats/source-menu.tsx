import Link from "next/link";
import { RelativeTime } from "@/components/ui/relative-time";
import { buttonClass } from "@/components/ui/button";
import { DismissableDetails } from "@/components/ui/dismissable-details";
import type { Provenance } from "@/lib/formats/get-provenance";
import { FORMAT_LABELS } from "@/lib/formats/types";
import { visibleBidiControls } from "@/lib/validation";
import { ExportMenu } from "./export-menu";
import { MetadataList } from "./metadata-list";
import { WarningList } from "./warning-list";

function ThreadLink({ id, title }: { id: string; title: string }) {
  return (
    <Link href={`/handoffs/${id}`} className="font-medium text-indigo-700 underline wrap-anywhere">
      {visibleBidiControls(title)}
    </Link>
  );
}

/** The threads this one continues and was continued in: one line each under the title. */
export function ThreadLinks({ provenance }: { provenance: Provenance }) {
  const { parent, children, source } = provenance;
  if (!parent && children.length === 0 && !source?.parentThreadId) return null;
  return (
    <div className="mb-3 flex flex-col gap-1 text-sm text-slate-700">
      {parent && (
        <p data-testid="parent-link">
          Continued from <ThreadLink id={parent.id} title={parent.title} /> (cut at {parent.number === null ? `seq ${parent.seq ?? "?"}` : `#${parent.number}`}).
        </p>
      )}
      {!parent && source?.parentThreadId && (
        <p>
          Continued from <code className="font-mono break-all">{visibleBidiControls(source.parentThreadId)}</code> at seq {source.parentSeq ?? "?"}, a thread of
          another system.
        </p>
      )}
      {children.length > 0 && (
        <div data-testid="child-links">
          Continued in:{" "}
          <ul className="inline">
            {children.map((child, index) => (
              <li key={child.id} className="inline">
                {index > 0 && ", "}
                <ThreadLink id={child.id} title={child.title} /> ({child.status})
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

/**
 * Where the thread came from (format, file, metadata, quality warnings) and its exports, folded
 * into one menu beside the title: open it when you need it; Escape or a click elsewhere closes it.
 */
export function SourceMenu({ handoffId, provenance }: { handoffId: string; provenance: Provenance }) {
  const { source, artifacts } = provenance;
  const canExport = provenance.entryCount > 0 || source !== null;
  const exported = artifacts.filter((artifact) => artifact.purpose === "export");
  const warnings = source?.warnings.length ?? 0;
  return (
    <DismissableDetails data-testid="source-menu" className="group relative">
      <summary className={buttonClass("secondary", "cursor-pointer list-none [&::-webkit-details-marker]:hidden")}>
        {canExport ? "Source & export" : "Source"}
        {warnings > 0 && <span className="rounded-full bg-amber-100 px-1.5 text-xs text-amber-900">{warnings} {warnings === 1 ? "warning" : "warnings"}</span>}
        <span aria-hidden className="text-xs group-open:rotate-180">
          ▾
        </span>
      </summary>
      <div className="absolute right-0 z-20 mt-1 flex w-[min(28rem,calc(100vw-2rem))] flex-col gap-3 rounded-lg border border-slate-200 bg-white p-4 text-sm text-slate-700 shadow-xl">
        {source ? (
          <p data-testid="provenance">
            Imported from <strong>{FORMAT_LABELS[source.format]}</strong>
            {source.fileName && (
              <>
                {" "}
                file <code className="font-mono break-all">{visibleBidiControls(source.fileName)}</code>
              </>
            )}{" "}
            <RelativeTime iso={source.importedAt} />.
          </p>
        ) : (
          <p>Started in Baton.</p>
        )}
        {source && <MetadataList metadata={source.metadata} />}
        {source && <WarningList warnings={source.warnings} />}
        {canExport && <ExportMenu handoffId={handoffId} canExportBundle={provenance.entryCount > 0} />}
        {exported.length > 0 && (
          <div>
            <p className="font-medium text-slate-800">
              {exported.length} exported {exported.length === 1 ? "bundle" : "bundles"}
            </p>
            <ul className="mt-1 flex flex-col gap-1">
              {exported.map((artifact) => (
                <li key={artifact.id}>
                  <a href={`/api/artifacts/${artifact.id}`} className="font-mono text-xs text-indigo-700 underline break-all">
                    {artifact.id}
                  </a>{" "}
                  cut at {artifact.cutNumber === null ? `seq ${artifact.cutSeq ?? "?"}` : `#${artifact.cutNumber}`}, <RelativeTime iso={artifact.createdAt} />
                </li>
              ))}
            </ul>
          </div>
        )}
      </div>
    </DismissableDetails>
  );
}
