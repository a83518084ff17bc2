"use client";

import { useActionState } from "react";
import { exportBundleAction, type ExportBundleState } from "@/app/handoffs/[id]/export/actions";
import { buttonClass } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { idleFormState, withoutPreviousState } from "@/lib/form-state";

const DOWNLOADS = [
  { format: "bundle", label: "Context bundle (.json)" },
  { format: "json", label: "handoff.json" },
  { format: "yaml", label: "handoff.yaml" },
] as const;

/** Download the thread in any format, or store its bundle and see the artifact id (inside the thread's source menu). */
export function ExportMenu({ handoffId, canExportBundle }: { handoffId: string; canExportBundle: boolean }) {
  const [state, formAction, pending] = useActionState<ExportBundleState, FormData>(withoutPreviousState(exportBundleAction), idleFormState);
  return (
    <div className="flex flex-col gap-2 border-t border-slate-200 pt-3">
      <p className="font-medium text-slate-800">Export</p>
      <ul aria-label="Download as" className="flex flex-col gap-1">
        {DOWNLOADS.map((download) => (
          <li key={download.format}>
            <a href={`/handoffs/${handoffId}/export?format=${download.format}`} download className="text-indigo-700 underline">
              Download {download.label}
            </a>
          </li>
        ))}
      </ul>
      {canExportBundle && (
        <form action={formAction}>
          <input type="hidden" name="id" value={handoffId} />
          <button type="submit" disabled={pending} className={buttonClass("secondary")}>
            {pending ? "Keeping…" : "Keep as bundle"}
          </button>
        </form>
      )}
      <div aria-live="polite" className="max-w-full">
        {state.status === "error" && <p className="text-red-700">{state.message}</p>}
        {state.status === "success" && state.artifactId && (
          <div className="flex flex-col gap-1">
            <p className="text-slate-700">{state.message}</p>
            <code data-testid="exported-artifact-id" className="rounded bg-slate-100 px-2 py-1 font-mono text-xs break-all text-slate-800">
              {state.artifactId}
            </code>
            <div className="flex flex-wrap gap-2">
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
