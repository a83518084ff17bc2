"use client";

import { useActionState } from "react";
import { exportBundleAction, type ExportBundleState } from "@/app/handoffs/[id]/export/actions";
import { buttonClass } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { idleFormState } from "@/lib/form-state";

const DOWNLOADS = [
  { format: "bundle", label: "Context bundle (.json)" },
  { format: "json", label: "handoff.json" },
  { format: "yaml", label: "handoff.yaml" },
] as const;

/** Download the thread in any format, or store its bundle and see the artifact id. */
export function ExportMenu({ handoffId, canExportBundle }: { handoffId: string; canExportBundle: boolean }) {
  const [state, formAction, pending] = useActionState<ExportBundleState, FormData>(exportBundleAction, idleFormState);
  return (
    <div className="flex flex-col items-start gap-2 sm:items-end">
      <details className="relative">
        <summary className={buttonClass("secondary", "cursor-pointer list-none")}>Export</summary>
        <ul aria-label="Download as" className="mt-1 flex flex-col gap-1 rounded-md border border-slate-200 bg-white p-2 text-sm shadow-lg">
          {DOWNLOADS.map((download) => (
            <li key={download.format}>
              <a href={`/handoffs/${handoffId}/export?format=${download.format}`} download className="block rounded px-2 py-1 text-slate-800 hover:bg-slate-100">
                Download {download.label}
              </a>
            </li>
          ))}
        </ul>
      </details>
      {canExportBundle && (
        <form action={formAction}>
          <input type="hidden" name="id" value={handoffId} />
          <button type="submit" disabled={pending} className={buttonClass("secondary")}>
            {pending ? "Exporting…" : "Export bundle"}
          </button>
        </form>
      )}
      <div aria-live="polite" className="max-w-full text-sm">
        {state.status === "error" && <p className="text-red-700">{state.message}</p>}
        {state.status === "success" && state.artifactId && (
          <div className="flex flex-col gap-1 sm:items-end">
            <p className="text-slate-700">{state.message}</p>
            <code data-testid="exported-artifact-id" className="rounded bg-slate-100 px-2 py-1 font-mono text-xs break-all text-slate-800">
              {state.artifactId}
            </code>
            <div className="flex gap-2">
              <CopyButton text={state.artifactId} label="Copy artifact ID" />
              <a href={`/api/artifacts/${state.artifactId}`} target="_blank" rel="noopener" className={buttonClass("ghost")}>
                Open bundle
              </a>
            </div>
          </div>
        )}
      </div>
    </div>
  );
}
