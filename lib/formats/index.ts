/**
 * lib/formats: the handoff documents other tools write (rip context bundles, handoff.json,
 * flow-guardian's handoff.yaml). Each format module parses and validates a document, turns it
 * into a thread draft and writes a thread back out (bundle.ts, handoff-json.ts, handoff-yaml.ts,
 * pure); import, export, checkpoints and closing with an archive compose lib/handoffs' operations
 * with the formats' own tables (store.ts: sources, and artifacts with their bytes) and the
 * content-addressed artifact folder (a copy of those bytes). Server-only as a whole; types.ts
 * (format names, labels, view types) is the client-safe part.
 */
import "server-only";
export { ARTIFACT_ID_PATTERN, blobPath, readBlob } from "./blobs";
export { BUNDLE_SCHEMA, bundleFormat, bundleSchema, type Bundle } from "./bundle";
export { canonicalJson } from "./canonical-json";
export { closeHandoff, type CloseHandoffOptions, type ClosedHandoff } from "./close-handoff";
export { checkpointProject, type CheckpointFields, type CheckpointProjectOptions, type CheckpointResult } from "./checkpoint-project";
export { detectFormat, formatNamed } from "./detect-format";
export { downloadHandoff, exportHandoff, type ExportedDocument, type ExportHandoffOptions } from "./export-handoff";
export { findProjectRoot, gitState, handoffYamlPath } from "./flow-guardian";
export { getProvenance, type ArtifactView, type LinkedThread, type Provenance } from "./get-provenance";
export { handoffJsonFormat, handoffJsonSchema, type HandoffJson } from "./handoff-json";
export { handoffYamlFormat, handoffYamlSchema, mergeHandoffYaml, validateHandoffYaml, type HandoffYaml } from "./handoff-yaml";
export { lastCheckpointOf, shiftDocumentFrom, type LastCheckpoint } from "./last-checkpoint";
export { importDocument, type ImportedHandoff } from "./import-document";
export type { ImportDocumentOptions } from "./plan-import";
export { previewImport, type ImportPreview } from "./preview-import";
export { pushCheckpoint, type PushCheckpointOptions, type PushedCheckpoint } from "./push-checkpoint";
export { FORMATS } from "./registry";
export * from "./types";
export { errorLines } from "./error-lines";
export { MAX_IMPORT_BYTES } from "./schema-helpers";
export { EXAMPLE_DOCUMENTS } from "./examples";
