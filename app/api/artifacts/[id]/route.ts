import { readBlob } from "@/lib/formats/artifact-store";
import { errorResponse } from "@/lib/http";

/**
 * A stored bundle's bytes (`<dataDir>/artifacts/blobs/<id>`), checked against their SHA-256.
 * Shown in the browser; `?download=1` saves it as a file. Blobs never change, so they cache forever.
 */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  try {
    const bytes = readBlob(id);
    const download = new URL(request.url).searchParams.get("download") === "1";
    return new Response(new Uint8Array(bytes), {
      headers: {
        "content-type": "application/json; charset=utf-8",
        "content-disposition": `${download ? "attachment" : "inline"}; filename="context-bundle-${id.slice(0, 12)}.json"`,
        "cache-control": "public, max-age=31536000, immutable",
        "x-content-type-options": "nosniff",
      },
    });
  } catch (error) {
    return errorResponse(error);
  }
}
