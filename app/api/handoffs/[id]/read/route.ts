import { markRead, type MarkReadOptions } from "@/lib/handoffs";
import { jsonRoute, readJsonBody } from "@/lib/http";

/** Mark read: `{ asClient? }` → the handoff with that side's cursor at the latest entry. */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return jsonRoute(async () => {
    // Typed by the cast, checked by markRead: it validates every field.
    return markRead({ ...(await readJsonBody(request)), id } as MarkReadOptions);
  });
}
