import { importDocument } from "@/lib/formats/import-document";
import type { ImportDocumentOptions } from "@/lib/formats/plan-import";
import { previewImport } from "@/lib/formats/preview-import";
import { jsonRoute, readJsonBody } from "@/lib/http";

/**
 * Import a document: `{ text | artifactId, fileName?, format?, project? }` → 201 the new thread
 * (`{ handoff, entries, format, warnings, parentId, artifactId, redactions }`), or 400 with every field
 * path. `{ …, "dryRun": true }` answers the preview instead (200, `ok: false` with the errors),
 * storing nothing.
 */
export async function POST(request: Request) {
  let body: Record<string, unknown>;
  try {
    body = await readJsonBody(request);
  } catch (error) {
    return jsonRoute(() => Promise.reject(error));
  }
  const { dryRun, ...fields } = body;
  const options = fields as ImportDocumentOptions;
  if (dryRun === true) return jsonRoute(() => previewImport(options));
  return jsonRoute(() => importDocument(options), 201);
}
