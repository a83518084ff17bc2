import { downloadHandoff, exportHandoff, type ExportedDocument } from "@/lib/formats/export-handoff";
import { errorResponse } from "@/lib/http";
import { queryValue } from "@/lib/validation";

type Context = { params: Promise<{ id: string }> };

/**
 * Download a thread as `?format=bundle|json|yaml` (`&cut=N`: cut at the entry whose seq is N;
 * `&cutAtEntry=N`: at entry #N). GET only reads:
 * any page the operator visits can send one.
 */
export async function GET(request: Request, context: Context) {
  return answer(request, context, downloadHandoff);
}

/**
 * The same document, a bundle also kept: stored content-addressed, its id in the
 * `x-baton-artifact-id` header. A POST, so the guard screens it as the write it is.
 */
export async function POST(request: Request, context: Context) {
  return answer(request, context, exportHandoff);
}

async function answer(request: Request, { params }: Context, render: typeof downloadHandoff): Promise<Response> {
  const { id } = await params;
  const search = new URL(request.url).searchParams;
  try {
    const exported: ExportedDocument = await render({ id, format: queryValue(search, "format"), cut: queryValue(search, "cut"), cutAtEntry: queryValue(search, "cutAtEntry") });
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
