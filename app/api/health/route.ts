/**
 * Liveness for monitors: answers without touching the database, so it says the server is up, not
 * that the data is reachable. Behind the guard like every other route, and the one API route Next
 * itself serves (lib/server/api-routes.ts hands the others to their handlers directly), so it
 * also says Next, which serves the dashboard, answers. `npm run bench -- speed` uses it as the
 * trivial Next route handler that REST and MCP are measured against.
 */
export const dynamic = "force-dynamic";

export function GET(): Response {
  return Response.json({ ok: true }, { headers: { "cache-control": "no-store" } });
}
