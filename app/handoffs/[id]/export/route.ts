import { exportHandoff } from "@/lib/formats/export-handoff";
import { errorResponse } from "@/lib/http";

/**
 * Download a thread as `?format=bundle|json|yaml` (`&cut=N`: cut at entry #N). A bundle is also
 * stored content-addressed; its id is in the `x-baton-artifact-id` header.
 */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const search = new URL(request.url).searchParams;
  try {
    const exported = await exportHandoff({ id, format: search.get("format") ?? "", cut: search.get("cut") });
    return new Response(exported.text, {
      headers: {
        "content-type": exported.contentType,
        "content-disposition": `attachment; filename="${exported.fileName}"`,
        "cache-control": "no-store",
        ...(exported.artifactId && { "x-baton-artifact-id": exported.artifactId }),
      },
    });
  } catch (error) {
    return errorResponse(error);
  }
}
