import { createHandoff, findHandoffs, type CreateHandoffOptions } from "@/lib/handoffs";
import { jsonRoute, readJsonBody } from "@/lib/http";

/** History: `?status=&project=&q=&source=&page=&perPage=`. */
export async function GET(request: Request) {
  const params = Object.fromEntries(new URL(request.url).searchParams);
  return jsonRoute(() => findHandoffs(params));
}

/** Create: `{ title, content, project?, asClient? }` → `{ handoff, entries, redactions }`; fields are validated by createHandoff. */
export async function POST(request: Request) {
  return jsonRoute(async () => createHandoff((await readJsonBody(request)) as CreateHandoffOptions), 201);
}
