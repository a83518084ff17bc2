import { getHandoff } from "@/lib/handoffs";
import { jsonRoute } from "@/lib/http";

/**
 * The thread as one side sees it: `?as=chat|code` (default chat), within the answer budget;
 * `after_seq`, `before_seq` and `limit` page through it. Never moves a cursor.
 */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const query = new URL(request.url).searchParams;
  const param = (name: string) => query.get(name) ?? undefined;
  return jsonRoute(() =>
    getHandoff({ id, asClient: param("as"), afterSeq: param("after_seq"), beforeSeq: param("before_seq"), limit: param("limit") }),
  );
}
