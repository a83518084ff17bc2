import "server-only";
import type { IncomingMessage } from "node:http";
import { SESSION_COOKIE, verifySession, verifyToken, type Principal } from "../auth";
import { isAccessToken, oauthUrls, publicBaseUrl, verifyAccessToken } from "../oauth";
import type { Caller } from "./stamp";
import { agentMayReach, FORWARDING_HEADERS, isPublicRequest, screenFacts, type GuardPolicy, type Refusal, type RequestFacts } from "./policy";

export type Verdict = { ok: true; caller: Caller } | (Refusal & { signIn?: boolean });

const header = (request: IncomingMessage, name: string): string | null => {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(",") : (value ?? null);
};

export function factsOf(request: IncomingMessage): RequestFacts {
  const url = request.url ?? "/";
  const queryAt = url.indexOf("?");
  return {
    method: request.method ?? "GET",
    path: queryAt === -1 ? url : url.slice(0, queryAt),
    host: header(request, "host"),
    origin: header(request, "origin"),
    secFetchSite: header(request, "sec-fetch-site"),
    contentType: header(request, "content-type"),
    contentLength: header(request, "content-length"),
    transferEncoding: header(request, "transfer-encoding"),
    peerAddress: request.socket.remoteAddress ?? "",
    localAddress: request.socket.localAddress ?? "",
    forwarded: FORWARDING_HEADERS.some((name) => request.headers[name] !== undefined),
  };
}

function cookieValue(cookieHeader: string | null, name: string): string | null {
  for (const part of (cookieHeader ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at !== -1 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return null;
}

function missingCredentials(facts: RequestFacts, policy: GuardPolicy): string {
  if (facts.forwarded) {
    return "this request came through a proxy (it carries forwarding headers), so it counts as remote and needs a token: set BATON_AUTH=required, create a token with `npx baton token create --name NAME --role agent` and send it as Authorization: Bearer <token>";
  }
  if (policy.authRequired) return "BATON_AUTH=required: send Authorization: Bearer <token>, or sign in at /sign-in";
  return "requests from beyond loopback need a token: send Authorization: Bearer <token> (create one on the server with `npx baton token create --name NAME --role agent`), or sign in at /sign-in";
}

/**
 * A named token (lib/auth), or an OAuth access token (lib/oauth), which is good only for this
 * server's MCP resource as the request's Host (or BATON_PUBLIC_URL) names it.
 */
async function verifyBearer(token: string, host: string | null): Promise<Principal | null> {
  if (!isAccessToken(token)) return verifyToken(token);
  return verifyAccessToken(token, oauthUrls(publicBaseUrl(host)).resource);
}

/** The whole guard for one request: headers first, then who the caller is and what it may reach. */
export async function screenRequest(policy: GuardPolicy, request: IncomingMessage): Promise<Verdict> {
  const facts = factsOf(request);
  const screened = screenFacts(policy, facts);
  if (!screened.ok) return screened;

  const authorization = header(request, "authorization");
  let principal: Principal | null = null;
  if (authorization !== null) {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    principal = bearer ? await verifyBearer(bearer[1], facts.host) : null;
    if (!principal) return { ok: false, status: 401, reason: "the bearer token is unknown, expired, revoked, for another server, or malformed; send Authorization: Bearer <token>" };
  } else {
    const session = cookieValue(header(request, "cookie"), SESSION_COOKIE);
    if (session) principal = await verifySession(session);
  }

  if (principal) {
    const serverAction = request.headers["next-action"] !== undefined;
    if (principal.role === "agent" && !agentMayReach(facts.path, serverAction) && !isPublicRequest(facts.method, facts.path)) {
      return { ok: false, status: 403, reason: `token "${principal.name}" has the agent role, which reaches only /api/mcp and the thread and agent API` };
    }
    return { ok: true, caller: { kind: "token", principal } };
  }
  if (!screened.needsCredentials) return { ok: true, caller: { kind: "local" } };
  if (isPublicRequest(facts.method, facts.path)) return { ok: true, caller: { kind: "anonymous" } };
  const browserPage = !facts.path.startsWith("/api/") && (facts.method === "GET" || facts.method === "HEAD");
  return { ok: false, status: 401, reason: missingCredentials(facts, policy), signIn: browserPage };
}

