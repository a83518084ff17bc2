import { addEntry, type AddEntryOptions } from "@/lib/handoffs";
import { jsonRoute, readJsonBody } from "@/lib/http";

/** Append: `{ type, content, asClient? }` → `{ handoff, entry, redactions }`; 409 on a completed handoff. */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return jsonRoute(async () => {
    // Typed by the cast, checked by addEntry: it validates every field.
    return addEntry({ ...(await readJsonBody(request)), id } as AddEntryOptions);
  }, 201);
}
