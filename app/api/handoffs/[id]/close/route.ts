import { closeHandoff } from "@/lib/handoffs";
import { jsonRoute, readJsonBody } from "@/lib/http";

/**
 * Close: wipes the entries and marks the handoff completed (again: no change). `{"archive": true}`
 * first keeps the thread as a context bundle; the answer is the handoff with `artifactId`.
 */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return jsonRoute(async () => {
    const body = await readJsonBody(request);
    const closed = await closeHandoff({ id, archive: body.archive as boolean | undefined });
    return { ...closed.handoff, artifactId: closed.artifactId };
  });
}
