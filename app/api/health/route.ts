/**
 * Liveness for monitors: answers without touching the database, so it says the server is up, not
 * that the data is reachable. Behind the guard like every other route. `npm run bench -- speed`
 * also uses it as the trivial route handler that REST and MCP are measured against.
 */
export const dynamic = "force-dynamic";

export function GET(): Response {
  return Response.json({ ok: true }, { headers: { "cache-control": "no-store" } });
}
