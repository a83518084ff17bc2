import "server-only";
import { InvalidClientMetadataError, InvalidRequestError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { Hono, type Context } from "hono";
import { rateLimiter } from "hono-rate-limiter";
import { endAgent, findAgents, getAgent, getContinuityChain, readHandoffDocument, registerAgent, triggerHandoff, updateAgent } from "../agents";
import type { RegisterAgentOptions, TriggerHandoffOptions, UpdateAgentOptions } from "../agents";
import { signIn, signOut, SESSION_COOKIE } from "../auth";
import { callerKey } from "../caller";
import { changeStream, EVENT_STREAM_HEADERS, eventsRequestOf, latestChangeSeq, STREAM_RETRY_AFTER_S, takeStreamSlot } from "../changes";
import { database } from "../database";
import { Invalid, NotFound } from "../errors";
import { readBlob } from "../formats/artifact-store";
import { importDocument } from "../formats/import-document";
import type { ImportDocumentOptions } from "../formats/plan-import";
import { previewImport } from "../formats/preview-import";
import { endWhenRevoked, type BatonEnv } from "../guard";
import { addEntry, createHandoff, findHandoffs, getHandoff, markRead } from "../handoffs";
import { closeHandoff } from "../formats";
import type { AddEntryOptions, CreateHandoffOptions, MarkReadOptions } from "../handoffs";
import { errorResponse, jsonRoute, readJsonBody } from "../http";
import { serveMcp } from "../mcp/handle-http";
import {
  authorizationServerMetadata,
  oauthErrorResponse,
  oauthJson,
  protectedResourceMetadata,
  publicBaseUrl,
  registerClient,
  REGISTRATIONS_PER_ADDRESS_PER_MINUTE,
  revokeOAuthToken,
  tokenRequest,
} from "../oauth";
import { parseInput, wholeNumberParam } from "../validation";
import { failedDeliveriesSince } from "../webhooks";
import { z } from "zod";

/**
 * Baton's HTTP API, declared in one place: the JSON API under /api, the MCP endpoint, OAuth's
 * endpoints and discovery documents. Every handler is thin: it reads the request, calls one
 * domain function and answers its result or its typed error (lib/http.ts). The guard (lib/guard)
 * ran before any of them and set `c.var.caller`; the domain reads the same caller
 * (lib/caller.ts) for the rules that depend on it.
 */
type Ctx = Context<BatonEnv>;

const query = (c: Ctx) => Object.fromEntries(new URL(c.req.url).searchParams);

function handoffRoutes(api: Hono<BatonEnv>): void {
  /** History: `?status=&project=&q=&source=&page=&perPage=`. */
  api.get("/api/handoffs", (c) => jsonRoute(() => findHandoffs(query(c))));
  /** Create: `{ title, content, project?, asClient?, repoPath? }` → `{ handoff, entries, redactions }`. */
  api.post("/api/handoffs", (c) => jsonRoute(async () => createHandoff((await readJsonBody(c.req.raw)) as CreateHandoffOptions), 201));
  /** The thread as one side sees it: `?as=chat|code`, within the answer budget; `after_seq`, `before_seq`, `limit` page it. */
  api.get("/api/handoffs/:id", (c) =>
    jsonRoute(() =>
      getHandoff({ id: c.req.param("id"), asClient: c.req.query("as"), afterSeq: c.req.query("after_seq"), beforeSeq: c.req.query("before_seq"), limit: c.req.query("limit") }),
    ),
  );
  /** Append: `{ type, content, asClient?, repoPath? }` → `{ handoff, entry, redactions }`; 409 on a completed handoff. */
  api.post("/api/handoffs/:id/entries", (c) =>
    jsonRoute(async () => addEntry({ ...(await readJsonBody(c.req.raw)), id: c.req.param("id") } as AddEntryOptions), 201),
  );
  /** Mark read: `{ asClient? }` → the handoff with that side's cursor at the latest entry. */
  api.post("/api/handoffs/:id/read", (c) => jsonRoute(async () => markRead({ ...(await readJsonBody(c.req.raw)), id: c.req.param("id") } as MarkReadOptions)));
  /** Close: wipes the entries; `{"archive": true}` first keeps the thread as a context bundle. */
  api.post("/api/handoffs/:id/close", (c) =>
    jsonRoute(async () => {
      const body = await readJsonBody(c.req.raw);
      const closed = await closeHandoff({ id: c.req.param("id"), archive: body.archive as boolean | undefined });
      return { ...closed.handoff, artifactId: closed.artifactId };
    }),
  );
}

function agentRoutes(api: Hono<BatonEnv>): void {
  /** Agents: `?status=active|ended&persona=&project=&page=&perPage=`. */
  api.get("/api/agents", (c) => jsonRoute(() => findAgents(query(c))));
  /** Register: `{ personaSlug, name?, project?, sessionId?, tmuxTarget?, contextPercent? }`. */
  api.post("/api/agents", (c) => jsonRoute(async () => registerAgent((await readJsonBody(c.req.raw)) as RegisterAgentOptions), 201));
  /** One agent: `id` is the integer id, the session UUID or its 8-hex prefix. */
  api.get("/api/agents/:id", (c) => jsonRoute(() => getAgent({ agentId: c.req.param("id") })));
  /** Report: `{ contextPercent?, tmuxTarget? }` (tmuxTarget null clears it). */
  api.patch("/api/agents/:id", (c) =>
    jsonRoute(async () => updateAgent({ ...((await readJsonBody(c.req.raw)) as Omit<UpdateAgentOptions, "agentId">), agentId: c.req.param("id") })),
  );
  /** The continuity chain: `{ predecessors, agent, successors, length }`. */
  api.get("/api/agents/:id/chain", (c) => jsonRoute(() => getContinuityChain({ agentId: c.req.param("id") })));
  /** End without a handoff (ending again changes nothing). */
  api.post("/api/agents/:id/end", (c) => jsonRoute(() => endAgent({ agentId: c.req.param("id") })));
  /** Hand off: `{ reason, document, successor?: { tmuxTarget?, name?, sessionId? } }`. */
  api.post("/api/agents/:id/handoff", (c) =>
    jsonRoute(async () => triggerHandoff({ ...((await readJsonBody(c.req.raw)) as Omit<TriggerHandoffOptions, "agentId">), agentId: c.req.param("id") }), 201),
  );
  /** The agent's handoff document as markdown (what its successor is told to read). */
  api.get("/api/agents/:id/document", async (c) => {
    try {
      const agent = await getAgent({ agentId: c.req.param("id") });
      if (!agent.handoff) throw new NotFound(`agent ${agent.shortId} has not handed off, so it has no handoff document`);
      const document = await readHandoffDocument(agent.handoff.filePath, agent.handoff.id);
      if (document.status !== "ok") throw new NotFound(`the handoff document of agent ${agent.shortId} cannot be shown (${document.status})`);
      return new Response(document.content, { headers: { "content-type": "text/markdown; charset=utf-8" } });
    } catch (error) {
      return errorResponse(error);
    }
  });
}

function formatRoutes(api: Hono<BatonEnv>): void {
  /**
   * Import: `{ text | artifactId, fileName?, format?, project? }` → 201 the new thread, or 400 with
   * every field path; `dryRun: true` answers the preview instead and stores nothing.
   */
  api.post("/api/import", async (c) => {
    let body: Record<string, unknown>;
    try {
      body = await readJsonBody(c.req.raw);
    } catch (error) {
      return errorResponse(error);
    }
    const { dryRun, ...fields } = body;
    const options = fields as ImportDocumentOptions;
    if (dryRun === true) return jsonRoute(() => previewImport(options));
    return jsonRoute(() => importDocument(options), 201);
  });
  /** A stored bundle's bytes, checked against their SHA-256; `?download=1` saves it. Blobs never change. */
  api.get("/api/artifacts/:id", async (c) => {
    const id = c.req.param("id");
    try {
      const bytes = await readBlob(id);
      const download = c.req.query("download") === "1";
      return new Response(new Uint8Array(bytes), {
        headers: {
          "content-type": "application/json; charset=utf-8",
          "content-disposition": `${download ? "attachment" : "inline"}; filename="context-bundle-${id.slice(0, 12)}.json"`,
          "cache-control": "public, max-age=31536000, immutable",
        },
      });
    } catch (error) {
      return errorResponse(error);
    }
  });
}

const notificationsQuery = z.object({ after_attempt: wholeNumberParam("after_attempt", 0, Number.MAX_SAFE_INTEGER) });

function liveRoutes(api: Hono<BatonEnv>): void {
  /** Server-Sent Events: `?after=&handoff=&agent=&subject=`; replays after `after` (or Last-Event-ID), then streams. */
  api.get("/api/events", async (c) => {
    let release: (() => void) | null = null;
    try {
      const request = eventsRequestOf(new URL(c.req.url), c.req.header("last-event-id") ?? null);
      release = takeStreamSlot(callerKey(c.var.caller));
      if (!release) {
        return Response.json(
          { error: { message: "too many live-update streams are open (per caller or in all): close one, or try again later" } },
          { status: 429, headers: { "retry-after": String(STREAM_RETRY_AFTER_S), "cache-control": "no-store" } },
        );
      }
      // Revoking the caller's token, grant or sign-in ends the stream (lib/guard/revocation-watch.ts).
      const revoked = new AbortController();
      const unwatch = endWhenRevoked(c.var.caller, () => revoked.abort());
      const ended = release;
      const stream = await changeStream(request, AbortSignal.any([c.req.raw.signal, revoked.signal]), undefined, () => {
        ended();
        unwatch();
      }).catch((error: unknown) => {
        unwatch();
        throw error;
      });
      return new Response(stream, { headers: EVENT_STREAM_HEADERS });
    } catch (error) {
      release?.();
      return errorResponse(error);
    }
  });
  /** What browser notifications start from: the latest change seq and the webhook deliveries that gave up since `after_attempt`. */
  api.get("/api/notifications", async (c) => {
    try {
      const parsed = parseInput(notificationsQuery, { after_attempt: c.req.query("after_attempt") });
      return Response.json({ changeSeq: await latestChangeSeq(), ...(await failedDeliveriesSince(parsed.after_attempt)) }, { headers: { "cache-control": "no-store" } });
    } catch (error) {
      return errorResponse(error);
    }
  });
  /** For a load balancer: 200 when the database answers, 503 when it does not. */
  api.get("/api/health", async (c) => {
    try {
      await database().ping();
      return c.json({ ok: true, database: "up" }, 200, { "cache-control": "no-store" });
    } catch (error) {
      console.error("baton: health check: the database does not answer", error);
      return c.json({ ok: false, database: "down" }, 503, { "cache-control": "no-store" });
    }
  });
}

/** The session cookie: HttpOnly, SameSite=Strict, Secure when the request came over https. */
function sessionCookie(c: Ctx, value: string, expires: Date): string {
  const https = new URL(c.req.url).protocol === "https:" || c.req.header("x-forwarded-proto") === "https";
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Expires=${expires.toUTCString()}${https ? "; Secure" : ""}`;
}

function sessionRoutes(api: Hono<BatonEnv>): void {
  /** Operator sign-in: `{token}` → the session cookie. Reachable without credentials. */
  api.post("/api/session", async (c) => {
    let setCookie = "";
    const response = await jsonRoute(async () => {
      const signedIn = await signIn({ token: (await readJsonBody(c.req.raw)).token });
      setCookie = sessionCookie(c, signedIn.sessionId, signedIn.expiresAt);
      return { name: signedIn.principal.name, role: signedIn.principal.role, expiresAt: signedIn.expiresAt.toISOString() };
    });
    if (setCookie) response.headers.set("set-cookie", setCookie);
    return response;
  });
  /** Sign out. */
  api.delete("/api/session", async (c) => {
    const session = /(?:^|;\s*)baton_session=([^;]+)/.exec(c.req.header("cookie") ?? "")?.[1];
    if (session) await signOut(session);
    return new Response(null, { status: 204, headers: { "set-cookie": sessionCookie(c, "", new Date(0)) } });
  });
}

const formBody = async (c: Ctx, what: string): Promise<URLSearchParams> => {
  const type = (c.req.header("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") throw new InvalidRequestError(`send the ${what} request as application/x-www-form-urlencoded`);
  return new URLSearchParams(await c.req.text());
};

function oauthRoutes(api: Hono<BatonEnv>): void {
  const host = (c: Ctx) => c.req.header("host") ?? null;
  /** RFC 9728 metadata of the MCP endpoint, also at the path-suffixed form where MCP clients look first. */
  api.get("/.well-known/oauth-protected-resource", (c) => oauthJson(protectedResourceMetadata(publicBaseUrl(host(c)))));
  api.get("/.well-known/oauth-protected-resource/api/mcp", (c) => oauthJson(protectedResourceMetadata(publicBaseUrl(host(c)))));
  /** RFC 8414 metadata: endpoints, PKCE S256, public clients. */
  api.get("/.well-known/oauth-authorization-server", (c) => oauthJson(authorizationServerMetadata(publicBaseUrl(host(c)))));
  api.all("/.well-known/*", (c) => c.json({ error: { code: "NOT_FOUND", message: `nothing is published at ${c.req.path}` } }, 404));

  /** Dynamic client registration (RFC 7591), limited per client address (behind a trusted proxy, the one it forwarded). */
  api.post(
    "/oauth/register",
    rateLimiter<BatonEnv>({
      windowMs: 60_000,
      limit: REGISTRATIONS_PER_ADDRESS_PER_MINUTE,
      keyGenerator: (c) => c.var.clientAddress,
      handler: () =>
        oauthJson({ error: "slow_down", error_description: `at most ${REGISTRATIONS_PER_ADDRESS_PER_MINUTE} client registrations a minute from one address; try again later` }, 429),
    }),
    async (c) => {
      try {
        let body: Record<string, unknown>;
        try {
          body = await readJsonBody(c.req.raw);
        } catch (error) {
          // The one body reader's refusals, in RFC 7591's terms.
          if (error instanceof Invalid) throw new InvalidClientMetadataError(`registration: ${error.message}`);
          throw error;
        }
        return oauthJson(await registerClient(body), 201);
      } catch (error) {
        return oauthErrorResponse(error);
      }
    },
  );
  /** The token endpoint (form-encoded, as OAuth requires); the code or refresh token is the credential. */
  api.post("/oauth/token", async (c) => {
    try {
      return oauthJson(await tokenRequest(await formBody(c, "token")));
    } catch (error) {
      return oauthErrorResponse(error);
    }
  });
  /** Token revocation (RFC 7009): 200 whether or not the token existed. */
  api.post("/oauth/revoke", async (c) => {
    try {
      await revokeOAuthToken(await formBody(c, "revocation"));
      return new Response(null, { status: 200, headers: { "cache-control": "no-store" } });
    } catch (error) {
      return oauthErrorResponse(error);
    }
  });
}

/** Every API route on one router; unknown paths under /api answer a JSON 404. */
export function apiRouter(): Hono<BatonEnv> {
  const api = new Hono<BatonEnv>();
  handoffRoutes(api);
  agentRoutes(api);
  formatRoutes(api);
  liveRoutes(api);
  sessionRoutes(api);
  oauthRoutes(api);
  /** MCP over Streamable HTTP: POST for requests, GET for a session's stream, DELETE to end it. */
  api.on(["POST", "GET", "DELETE"], "/api/mcp", (c) => serveMcp(c.req.raw, c.var.caller));
  api.all("/api/*", (c) => {
    const allowed = allowedMethods(api, c.req.path);
    if (allowed.length === 0) return c.json({ error: { code: "NOT_FOUND", message: `no API route ${c.req.path}` } }, 404);
    const allow = [...allowed, "OPTIONS"].join(", ");
    if (c.req.method === "OPTIONS") return c.body(null, 204, { allow });
    return c.json({ error: { code: "METHOD_NOT_ALLOWED", message: `${c.req.path} answers ${allow}` } }, 405, { allow });
  });
  return api;
}

/** The methods the routes declared for a path answer (HEAD with GET), for 405 and OPTIONS. */
function allowedMethods(api: Hono<BatonEnv>, path: string): string[] {
  const methods = new Set<string>();
  for (const route of api.routes) {
    if (route.method === "ALL" || route.path.endsWith("*")) continue;
    const pattern = new RegExp(`^${route.path.replace(/:[A-Za-z_]+/g, "[^/]+")}/?$`);
    if (pattern.test(path)) methods.add(route.method);
  }
  if (methods.has("GET")) methods.add("HEAD");
  return [...methods];
}
