import type { ReactNode } from "react";
import type { SourceMetadata } from "@/lib/formats/types";
import { visibleBidiControls } from "@/lib/validation";

/** The imported document's facts that have no entry: branch, files, session id, timestamps … */
export function MetadataList({ metadata }: { metadata: SourceMetadata }) {
  const rows: [string, ReactNode][] = [];
  if (metadata.status) rows.push(["Status", metadata.status]);
  if (metadata.reason) rows.push(["Reason", metadata.reason]);
  if (metadata.storyId) rows.push(["Story", metadata.storyId]);
  if (metadata.progressPercent != null) rows.push(["Progress", `${metadata.progressPercent}%`]);
  if (metadata.branch) rows.push(["Branch", <code key="branch" className="font-mono break-all">{visibleBidiControls(metadata.branch)}</code>]);
  if (metadata.sessionId) rows.push(["Session", <code key="session" className="font-mono break-all">{metadata.sessionId}</code>]);
  if (metadata.documentTimestamp) rows.push(["Written", <time key="time" dateTime={metadata.documentTimestamp}>{metadata.documentTimestamp}</time>]);
  if (metadata.checkpoints) rows.push(["Checkpoints", String(metadata.checkpoints)]);
  if (metadata.files && metadata.files.length > 0) {
    rows.push([
      "Files",
      <ul key="files" className="flex flex-col">
        {metadata.files.map((file) => (
          <li key={file}>
            <code className="font-mono break-all">{visibleBidiControls(file)}</code>
          </li>
        ))}
      </ul>,
    ]);
  }
  if (metadata.artifacts && metadata.artifacts.length > 0) {
    rows.push([
      "Artifacts",
      <ul key="artifacts" className="flex flex-col">
        {metadata.artifacts.map((artifact) => (
          <li key={artifact.artifactId}>
            <code className="font-mono break-all">{visibleBidiControls(artifact.artifactId)}</code>
            {artifact.note ? ` (${visibleBidiControls(artifact.note)})` : ""}
          </li>
        ))}
      </ul>,
    ]);
  }
  if (rows.length === 0) return null;
  return (
    <dl data-testid="source-metadata" className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
      {rows.map(([label, value]) => (
        <div key={label} className="contents">
          <dt className="font-medium text-slate-600">{label}</dt>
          <dd className="min-w-0 text-slate-900">{typeof value === "string" ? visibleBidiControls(value) : value}</dd>
        </div>
      ))}
    </dl>
  );
}
