import { signIn, signOut, SESSION_COOKIE } from "@/lib/auth";
import { jsonRoute, readJsonBody } from "@/lib/http";

/**
 * Operator sign-in: POST `{token}` sets the session cookie (HttpOnly, SameSite=Strict, Secure
 * when the request came over https); DELETE signs out. Reachable without credentials.
 */
function cookie(request: Request, value: string, expires: Date): string {
  const https = new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Expires=${expires.toUTCString()}${https ? "; Secure" : ""}`;
}

export async function POST(request: Request): Promise<Response> {
  let setCookie = "";
  const response = await jsonRoute(async () => {
    const signedIn = await signIn({ token: (await readJsonBody(request)).token });
    setCookie = cookie(request, signedIn.sessionId, signedIn.expiresAt);
    return { name: signedIn.principal.name, role: signedIn.principal.role, expiresAt: signedIn.expiresAt.toISOString() };
  });
  if (setCookie) response.headers.set("set-cookie", setCookie);
  return response;
}

export async function DELETE(request: Request): Promise<Response> {
  const session = /(?:^|;\s*)baton_session=([^;]+)/.exec(request.headers.get("cookie") ?? "")?.[1];
  if (session) await signOut(session);
  const response = new Response(null, { status: 204 });
  response.headers.set("set-cookie", cookie(request, "", new Date(0)));
  return response;
}
