import { getHandoff } from "@/lib/handoffs";
import { jsonRoute } from "@/lib/http";

/** The thread as one side sees it: `?as=chat|code` (default chat). Never moves a cursor. */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const asClient = new URL(request.url).searchParams.get("as") ?? undefined;
  return jsonRoute(() => getHandoff({ id, asClient }));
}
