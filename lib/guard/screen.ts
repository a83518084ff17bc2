import "server-only";
import type { IncomingMessage } from "node:http";
import { SESSION_COOKIE, verifySession, verifyToken, type Principal } from "../auth";
import type { Caller, Who } from "../caller";
import { isAccessToken, oauthUrls, publicBaseUrl, verifyAccessToken } from "../oauth";
import { batonCommand } from "../paths.mjs";
import { agentMayReach, carriesForwarding, isLoopbackAddress, isPublicRequest, screenFacts, type GuardPolicy, type Refusal, type RequestFacts } from "./policy";

/** The guard's answer for one request: its caller, or a refusal (and whether a page should send the browser to sign in). */
export type Verdict = { ok: true; caller: Caller } | (Refusal & { signIn?: boolean; invalidToken?: boolean });

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
    secFetchMode: header(request, "sec-fetch-mode"),
    secFetchDest: header(request, "sec-fetch-dest"),
    contentType: header(request, "content-type"),
    contentLength: header(request, "content-length"),
    transferEncoding: header(request, "transfer-encoding"),
    peerAddress: request.socket.remoteAddress ?? "",
    localAddress: request.socket.localAddress ?? "",
    forwarded: carriesForwarding(Object.keys(request.headers)),
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
    return `this request came through a proxy (it carries forwarding headers), so it counts as remote and needs a token: set BATON_AUTH=required, create a token with \`${batonCommand()} token create --name NAME --role agent\` and send it as Authorization: Bearer <token>`;
  }
  if (policy.authRequired) return "BATON_AUTH=required: send Authorization: Bearer <token>, or sign in at /sign-in";
  if (isLoopbackAddress(facts.peerAddress)) {
    return `this request named "${facts.host}", not localhost, so it counts as remote (a proxy passing on its public name) and needs a token: send Authorization: Bearer <token> (create one on the server with \`${batonCommand()} token create --name NAME --role agent\`), or sign in at /sign-in`;
  }
  return `requests from beyond loopback need a token: send Authorization: Bearer <token> (create one on the server with \`${batonCommand()} token create --name NAME --role agent\`), or sign in at /sign-in`;
}

/**
 * Who a bearer stands for: a named token (lib/auth), or a connector's OAuth access token
 * (lib/oauth), which is good only for this server's MCP resource as the request's Host (or
 * BATON_PUBLIC_URL) names it.
 */
async function bearerWho(token: string, host: string | null): Promise<Who | null> {
  if (isAccessToken(token)) {
    const grant = await verifyAccessToken(token, oauthUrls(publicBaseUrl(host)).resource);
    return grant && { kind: "connector", tokenId: grant.tokenId, name: grant.name, side: grant.actAs ?? "chat", proof: grant.proof };
  }
  const principal = await verifyToken(token);
  return principal && { kind: "token", tokenId: principal.tokenId, name: principal.name, role: principal.role, proof: principal.proof };
}

const sessionWho = (principal: Principal): Who => ({ kind: "session", tokenId: principal.tokenId, name: principal.name, role: principal.role, proof: principal.proof });

/** The whole guard for one request: headers first, then who the caller is and what it may reach. */
export async function screenRequest(policy: GuardPolicy, request: IncomingMessage): Promise<Verdict> {
  const facts = factsOf(request);
  const screened = screenFacts(policy, facts);
  if (!screened.ok) return screened;
  const { local } = screened;

  const authorization = header(request, "authorization");
  let who: Who | null = null;
  if (authorization !== null) {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    who = bearer ? await bearerWho(bearer[1], facts.host) : null;
    if (!who) {
      return {
        ok: false,
        status: 401,
        invalidToken: true,
        reason: "the bearer token is unknown, expired, revoked, for another server, or malformed; send Authorization: Bearer <token>",
      };
    }
  } else {
    const session = cookieValue(header(request, "cookie"), SESSION_COOKIE);
    const principal = session ? await verifySession(session) : null;
    if (principal) who = sessionWho(principal);
  }

  if (who) {
    const serverAction = request.headers["next-action"] !== undefined;
    const agentLike = who.kind === "connector" || ((who.kind === "token" || who.kind === "session") && who.role === "agent");
    if (agentLike && !agentMayReach(facts.path, serverAction, facts.method) && !isPublicRequest(facts.method, facts.path)) {
      const name = who.kind === "connector" || who.kind === "token" || who.kind === "session" ? who.name : "";
      return { ok: false, status: 403, reason: `token "${name}" has the agent role, which reaches only /api/mcp and the thread and agent API` };
    }
    return { ok: true, caller: { who, local } };
  }
  if (!screened.needsCredentials) return { ok: true, caller: { who: { kind: "desk" }, local } };
  if (isPublicRequest(facts.method, facts.path)) return { ok: true, caller: { who: { kind: "anonymous" }, local } };
  const browserPage = !facts.path.startsWith("/api/") && (facts.method === "GET" || facts.method === "HEAD");
  return { ok: false, status: 401, reason: missingCredentials(facts, policy), signIn: browserPage };
}
