import { closeHandoff } from "@/lib/handoffs";
import { jsonRoute } from "@/lib/http";

/** Close: wipes the entries and marks the handoff completed (again: no change). */
export async function POST(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return jsonRoute(() => closeHandoff({ id }));
}
