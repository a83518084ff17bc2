import "server-only";
import { InvalidClientMetadataError, InvalidRequestError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { Hono, type Context, type MiddlewareHandler } from "hono";
import { rateLimiter } from "hono-rate-limiter";
import { TrieRouter } from "hono/router/trie-router";
import { z } from "zod";
import { endAgent, findAgents, getAgent, getContinuityChain, loadShiftDocument, registerAgent, triggerHandoff, updateAgent } from "../agents";
import type { RegisterAgentOptions, TriggerHandoffOptions, UpdateAgentOptions } from "../agents";
import { signIn, signOut, SESSION_COOKIE } from "../auth";
import { callerKey } from "../caller";
import { changeStream, EVENT_STREAM_HEADERS, eventsRequestOf, latestChangeSeq, STREAM_RETRY_AFTER_S, takeStreamSlot } from "../changes";
import { attentionOfCaller } from "../dashboard/attention-marks";
import { database } from "../database";
import { Invalid, NotFound } from "../errors";
import { closeHandoff, type CloseHandoffOptions } from "../formats";
import { readBlob } from "../formats/blobs";
import { importDocument } from "../formats/import-document";
import { importDocumentInput, type ImportDocumentOptions } from "../formats/plan-import";
import { previewImport } from "../formats/preview-import";
import type { BatonEnv } from "../guard/middleware";
import type { BodyClass } from "../guard/body-limits";
import { mediaType } from "../guard/media-type";
import { clientBlockOf } from "../guard/client-address";
import { endWhenRevoked } from "../guard/revocation-watch";
import { addEntry, createHandoff, findHandoffs, getHandoff, markRead } from "../handoffs";
import type { AddEntryOptions, CreateHandoffOptions, FindHandoffsOptions, GetHandoffOptions, MarkReadOptions } from "../handoffs";
import { camelCaseFields, errorResponse, readJsonBody } from "../http";
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
import { operationInput, parseInput, queryValue, wholeNumberParam, type GivenMoreThanOnce } from "../validation";
import { failedDeliveriesSince } from "../webhooks";

/**
 * Baton's HTTP API, declared in one place: the JSON API under /api, the MCP endpoint, OAuth's
 * endpoints and discovery documents. Each route is declared once, with its policy beside it: who
 * may call it (anyone, an agent's token or a connector's grant too, or the operator only) and
 * which body limit it gets. The guard (lib/guard) reads the same declarations before any handler
 * runs (apiRoutePolicy); it sets `c.var.caller`, and the domain reads the same caller
 * (lib/caller.ts). Handlers are thin: they read the request, call one domain function and answer
 * its result; a thrown typed error is answered once, by the router's onError (OAuth's endpoints
 * by their group's, in OAuth's shape).
 */
type Ctx = Context<BatonEnv>;
type Handler = (c: Ctx) => Response | Promise<Response>;

/**
 * Who may call a route: `public`, anyone (what a sign-in or a connector needs before it has
 * credentials, and the load balancer's health check); `agent`, an agent's token or a connector's
 * grant as well as the operator; `operator`, the operator only.
 */
export type RouteAccess = "public" | "agent" | "operator";
export type RoutePolicy = { access: RouteAccess; body: BodyClass };
/** `errors: "oauth"`: the route is one of OAuth's endpoints, which answer errors in RFC 6749's shape. */
type ApiRoute = { methods: readonly string[]; path: string; policy: RoutePolicy; handler: Handler; before?: MiddlewareHandler<BatonEnv>; errors?: "oauth" };

const PUBLIC: RoutePolicy = { access: "public", body: "default" };
const AGENT: RoutePolicy = { access: "agent", body: "default" };
const OPERATOR: RoutePolicy = { access: "operator", body: "default" };

/**
 * A GET's query as its operation reads it: each parameter's text, or GivenMoreThanOnce when it
 * is given more than once, which the operation refuses by name (a parameter it does not know is
 * ignored, however often it comes).
 */
const query = (c: Ctx): Record<string, string | GivenMoreThanOnce> => {
  const params = new URL(c.req.url).searchParams;
  return Object.fromEntries([...new Set(params.keys())].map((name) => [name, queryValue(params, name)!]));
};
/** An operation's JSON body, its fields as the operation spells them (camelCase; MCP's snake_case read as the same). */
const operationBody = async (c: Ctx) => camelCaseFields(await readJsonBody(c.req.raw));
/**
 * The body with `field` set from the path's ID. The body may not give it too: a different ID there
 * was silently overridden by the path's, and a script meaning that one wrote to another thread.
 */
const operationBodyAt = async (c: Ctx, field: "id" | "agentId") => {
  const body = await operationBody(c);
  if (Object.hasOwn(body, field)) throw new Invalid(`${field} comes from the path (${c.req.path}); leave it out of the body`, { [field]: ["comes from the path"] });
  return { ...body, [field]: idParam(c) };
};
const json = (value: unknown, status = 200) => Response.json(value, { status });
const host = (c: Ctx) => c.req.header("host") ?? null;
/** The `:id` of a route declared with one (Hono types a handler declared apart from its path loosely). */
const idParam = (c: Ctx) => c.req.param("id") ?? "";

/**
 * The session cookie: HttpOnly, SameSite=Lax, Secure when the request came over https. Lax, not
 * Strict: a browser leaves a Strict cookie off every navigation another site starts, so a
 * signed-in operator following a link from a chat, or claude.ai's Connect opening the consent
 * page, was sent to sign in again. Writes from other sites are the guard's to refuse (Origin,
 * Sec-Fetch-Site), and Lax sends the cookie with none of them.
 */
function sessionCookie(c: Ctx, value: string, expires: Date): string {
  const https = new URL(c.req.url).protocol === "https:" || c.req.header("x-forwarded-proto") === "https";
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Expires=${expires.toUTCString()}${https ? "; Secure" : ""}`;
}

/** The media type a request says its body is, as the guard reads it (lib/guard/policy.ts). */
const bodyType = (c: Ctx) => mediaType(c.req.header("content-type"));

const formBody = async (c: Ctx, what: string): Promise<URLSearchParams> => {
  if (bodyType(c) !== "application/x-www-form-urlencoded") throw new InvalidRequestError(`send the ${what} request as application/x-www-form-urlencoded`);
  return new URLSearchParams(await c.req.text());
};

/**
 * A registration's JSON body, sent as application/json (RFC 7591 §3.1: OAuth's endpoints are
 * outside /api, where the guard asks for it); the body reader's refusals in RFC 7591's terms.
 */
const registrationBody = async (c: Ctx) => {
  if (bodyType(c) !== "application/json") throw new InvalidClientMetadataError(`send the registration as application/json (got "${c.req.header("content-type") ?? "none"}")`);
  return readJsonBody(c.req.raw).catch((error: unknown) => {
    throw error instanceof Invalid ? new InvalidClientMetadataError(`registration: ${error.message}`) : error;
  });
};

/**
 * The import route's body: the import's own fields, whose values importDocument checks, and
 * `dryRun`, which only a boolean may set: a preview asked for as "true" or 1 must not store.
 */
const importRequest = operationInput({
  ...Object.fromEntries(Object.keys(importDocumentInput.shape).map((field) => [field, z.unknown().optional()])),
  dryRun: z.boolean({ error: "must be true or false" }).optional(),
});
const notificationsQuery = z.object({ after_attempt: wholeNumberParam("after_attempt", 0, Number.MAX_SAFE_INTEGER) });

/** Dynamic client registration (RFC 7591), limited per client (behind a trusted proxy, the address it forwarded): an IPv4 address or an IPv6 /64. */
const registrationLimit = rateLimiter<BatonEnv>({
  windowMs: 60_000,
  limit: REGISTRATIONS_PER_ADDRESS_PER_MINUTE,
  keyGenerator: (c) => clientBlockOf(c.var.clientAddress),
  handler: () => oauthJson({ error: "slow_down", error_description: `at most ${REGISTRATIONS_PER_ADDRESS_PER_MINUTE} client registrations a minute from one address; try again later` }, 429),
});

const protectedResource: Handler = (c) => oauthJson(protectedResourceMetadata(publicBaseUrl(host(c))));
const notPublished: Handler = (c) => c.json({ error: { code: "NOT_FOUND", message: `nothing is published at ${c.req.path}` } }, 404);

/**
 * The health check's log: a line when the database stops answering and one when it answers
 * again, not a stack at every check: a load balancer asks every few seconds, and a database down
 * for an hour filled the log with the same thirty lines each time.
 */
let databaseDown = false;
function reportHealth(state: { up: true } | { up: false; reason: string }): void {
  if (state.up === !databaseDown) return;
  databaseDown = !state.up;
  console.error(state.up ? "baton: health check: the database answers again" : `baton: health check: the database does not answer (${state.reason}); said once until it answers again`);
}

/** Every API route, with its policy. A route added any other way fails tests/route-policy.test.ts. */
const API_ROUTES: readonly ApiRoute[] = [
  // Threads.
  /** History: `?status=&project=&q=&source=&page=&perPage=`. */
  { methods: ["GET"], path: "/api/handoffs", policy: AGENT, handler: async (c) => json(await findHandoffs(query(c) as FindHandoffsOptions)) },
  /** Create: `{ title, content, project?, asClient?, repoPath? }` → `{ handoff, entries, redactions }`. */
  { methods: ["POST"], path: "/api/handoffs", policy: AGENT, handler: async (c) => json(await createHandoff((await operationBody(c)) as CreateHandoffOptions), 201) },
  /** The thread as one side sees it: `?as=chat|code`, within the answer budget; `after_seq`, `before_seq`, `from_number`, `limit` page it. */
  {
    methods: ["GET"],
    path: "/api/handoffs/:id",
    policy: AGENT,
    handler: async (c) => {
      const given = query(c);
      const options = { id: idParam(c), asClient: given.as, afterSeq: given.after_seq, beforeSeq: given.before_seq, fromNumber: given.from_number, limit: given.limit };
      return json(await getHandoff(options as GetHandoffOptions));
    },
  },
  /** Append: `{ type, content, answers?, asClient?, repoPath? }` (type may be left out with `answers`) → `{ handoff, entry, redactions }`; 409 on a completed handoff. */
  {
    methods: ["POST"],
    path: "/api/handoffs/:id/entries",
    policy: AGENT,
    handler: async (c) => json(await addEntry((await operationBodyAt(c, "id")) as AddEntryOptions), 201),
  },
  /** Mark read: `{ asClient? }` → the handoff with that side's cursor at the latest entry. */
  {
    methods: ["POST"],
    path: "/api/handoffs/:id/read",
    policy: AGENT,
    handler: async (c) => json(await markRead((await operationBodyAt(c, "id")) as MarkReadOptions)),
  },
  /** Close: wipes the entries; `{"archive": true}` first keeps the thread as a context bundle. */
  {
    methods: ["POST"],
    path: "/api/handoffs/:id/close",
    policy: AGENT,
    handler: async (c) => {
      const closed = await closeHandoff((await operationBodyAt(c, "id")) as CloseHandoffOptions);
      return json({ ...closed.handoff, artifactId: closed.artifactId });
    },
  },

  // Agents.
  /** Agents: `?status=active|ended&persona=&project=&page=&perPage=`. */
  { methods: ["GET"], path: "/api/agents", policy: AGENT, handler: async (c) => json(await findAgents(query(c))) },
  /** Register: `{ personaSlug, name?, project?, sessionId?, tmuxTarget?, contextPercent? }`. */
  { methods: ["POST"], path: "/api/agents", policy: AGENT, handler: async (c) => json(await registerAgent((await operationBody(c)) as RegisterAgentOptions), 201) },
  /** One agent: `id` is the integer id, the session UUID or its 8-hex prefix. */
  { methods: ["GET"], path: "/api/agents/:id", policy: AGENT, handler: async (c) => json(await getAgent({ agentId: idParam(c) })) },
  /** Report: `{ contextPercent?, tmuxTarget? }` (tmuxTarget null clears it). */
  {
    methods: ["PATCH"],
    path: "/api/agents/:id",
    policy: AGENT,
    handler: async (c) => json(await updateAgent((await operationBodyAt(c, "agentId")) as UpdateAgentOptions)),
  },
  /** The continuity chain around the agent: `{ predecessors, agent, successors, length, earlier, first, later, last }` (the 20 nearest on each side). */
  { methods: ["GET"], path: "/api/agents/:id/chain", policy: AGENT, handler: async (c) => json(await getContinuityChain({ agentId: idParam(c) })) },
  /** End without a handoff (ending again changes nothing). */
  { methods: ["POST"], path: "/api/agents/:id/end", policy: AGENT, handler: async (c) => json(await endAgent({ agentId: idParam(c) })) },
  /** Hand off: `{ reason, document, successor?: { tmuxTarget?, name?, sessionId? } }`; the document gets the larger limit. */
  {
    methods: ["POST"],
    path: "/api/agents/:id/handoff",
    policy: { access: "agent", body: "document" },
    handler: async (c) => json(await triggerHandoff((await operationBodyAt(c, "agentId")) as TriggerHandoffOptions), 201),
  },
  /** The agent's shift document as markdown (what its successor is told to read). */
  {
    methods: ["GET"],
    path: "/api/agents/:id/document",
    policy: AGENT,
    handler: async (c) => {
      const agent = await getAgent({ agentId: idParam(c) });
      if (!agent.handoff) throw new NotFound(`agent ${agent.shortId} has not handed off, so it has no shift document`);
      const document = await loadShiftDocument(agent.handoff.filePath, agent.handoff.id);
      if (document.status !== "ok") throw new NotFound(`the shift document of agent ${agent.shortId} cannot be shown (${document.status})`);
      return new Response(document.content, { headers: { "content-type": "text/markdown; charset=utf-8" } });
    },
  },

  // Formats.
  /**
   * Import: `{ text | artifactId, fileName?, format?, project? }` → 201 the new thread, or 400 with
   * every field path; `dryRun: true` answers the preview instead and stores nothing.
   */
  {
    methods: ["POST"],
    path: "/api/import",
    policy: { access: "agent", body: "import" },
    handler: async (c) => {
      const { dryRun, ...fields } = parseInput(importRequest, await operationBody(c));
      const options = fields as ImportDocumentOptions;
      return dryRun ? json(await previewImport(options)) : json(await importDocument(options), 201);
    },
  },
  /**
   * A stored bundle's bytes, checked against their SHA-256; `?download=1` saves it. Blobs never
   * change, so the browser keeps them; `private`, because a bundle is one caller's thread, and
   * `public` would let a shared cache in front (a CDN, a caching proxy) store an answer to an
   * authenticated request and hand it to anyone who asks for the same URL (RFC 9111 §3.5).
   */
  {
    methods: ["GET"],
    path: "/api/artifacts/:id",
    policy: AGENT,
    handler: async (c) => {
      const id = idParam(c);
      const bytes = await readBlob(id);
      const download = c.req.query("download") === "1";
      return new Response(new Uint8Array(bytes), {
        headers: {
          "content-type": "application/json; charset=utf-8",
          "content-disposition": `${download ? "attachment" : "inline"}; filename="context-bundle-${id.slice(0, 12)}.json"`,
          "cache-control": "private, max-age=31536000, immutable",
        },
      });
    },
  },

  // MCP over Streamable HTTP: POST for requests, GET for a session's stream, DELETE to end it. Shift documents grow when JSON-escaped.
  { methods: ["POST", "GET", "DELETE"], path: "/api/mcp", policy: { access: "agent", body: "mcp" }, handler: (c) => serveMcp(c.req.raw, c.var.caller) },

  // Live updates.
  /** Server-Sent Events: `?after=&handoff=&agent=&subject=`; replays after `after` (or Last-Event-ID), then streams. */
  {
    methods: ["GET"],
    path: "/api/events",
    policy: OPERATOR,
    handler: async (c) => {
      const request = eventsRequestOf(new URL(c.req.url), c.req.header("last-event-id") ?? null);
      const release = takeStreamSlot(callerKey(c.var.caller));
      if (!release) {
        return Response.json(
          { error: { code: "REFUSED", message: "too many live-update streams are open (per caller or in all): close one, or try again later" } },
          { status: 429, headers: { "retry-after": String(STREAM_RETRY_AFTER_S), "cache-control": "no-store" } },
        );
      }
      // Revoking the caller's token, grant or sign-in ends the stream (lib/guard/revocation-watch.ts).
      const revoked = new AbortController();
      const unwatch = endWhenRevoked(c.var.caller, () => revoked.abort());
      // However the stream ends (its replay failing included), its slot and its watch go.
      const stream = await changeStream(request, AbortSignal.any([c.req.raw.signal, revoked.signal]), undefined, () => {
        release();
        unwatch();
      });
      return new Response(stream, { headers: EVENT_STREAM_HEADERS });
    },
  },
  /** What browser notifications start from: the latest change seq and the webhook deliveries that gave up since `after_attempt`. */
  {
    methods: ["GET"],
    path: "/api/notifications",
    policy: OPERATOR,
    handler: async (c) => {
      const parsed = parseInput(notificationsQuery, { after_attempt: c.req.query("after_attempt") });
      return Response.json({ changeSeq: await latestChangeSeq(), ...(await failedDeliveriesSince(parsed.after_attempt)) }, { headers: { "cache-control": "no-store" } });
    },
  },
  /** What needs the calling operator now (the desk's list and the navigation's count), with their own Done and Snooze applied. */
  { methods: ["GET"], path: "/api/attention", policy: OPERATOR, handler: async () => Response.json(await attentionOfCaller(), { headers: { "cache-control": "no-store" } }) },
  /** For a load balancer: 200 when the database answers, 503 when it does not (it says nothing else, so it needs no token). */
  {
    methods: ["GET"],
    path: "/api/health",
    policy: PUBLIC,
    handler: async (c) => {
      const up = await database()
        .ping()
        .then(
          () => true,
          (error: unknown) => (reportHealth({ up: false, reason: error instanceof Error ? error.message.split("\n")[0] : String(error) }), false),
        );
      if (up) reportHealth({ up: true });
      return c.json({ ok: up, database: up ? "up" : "down" }, up ? 200 : 503, { "cache-control": "no-store" });
    },
  },

  // Sign-in.
  /** Operator sign-in: `{token}` → the session cookie. */
  {
    methods: ["POST"],
    path: "/api/session",
    policy: PUBLIC,
    handler: async (c) => {
      const signedIn = await signIn(await readJsonBody(c.req.raw));
      const response = json({ name: signedIn.principal.name, role: signedIn.principal.role, expiresAt: signedIn.expiresAt.toISOString() });
      response.headers.set("set-cookie", sessionCookie(c, signedIn.sessionId, signedIn.expiresAt));
      return response;
    },
  },
  /** Sign out. */
  {
    methods: ["DELETE"],
    path: "/api/session",
    policy: PUBLIC,
    handler: async (c) => {
      const session = /(?:^|;\s*)baton_session=([^;]+)/.exec(c.req.header("cookie") ?? "")?.[1];
      if (session) await signOut(session);
      return new Response(null, { status: 204, headers: { "set-cookie": sessionCookie(c, "", new Date(0)) } });
    },
  },

  // OAuth, for connectors (remote Claude clients).
  /** RFC 9728 metadata of the MCP endpoint, also at the path-suffixed form where MCP clients look first. */
  { methods: ["GET"], path: "/.well-known/oauth-protected-resource", policy: PUBLIC, handler: protectedResource },
  { methods: ["GET"], path: "/.well-known/oauth-protected-resource/api/mcp", policy: PUBLIC, handler: protectedResource },
  /** RFC 8414 metadata: endpoints, PKCE S256, public clients. */
  { methods: ["GET"], path: "/.well-known/oauth-authorization-server", policy: PUBLIC, handler: (c) => oauthJson(authorizationServerMetadata(publicBaseUrl(host(c)))) },
  /** Clients probe several discovery paths: a JSON 404 for the rest (reading is public; anything else is not). */
  { methods: ["GET"], path: "/.well-known/*", policy: PUBLIC, handler: notPublished },
  { methods: ["POST", "PUT", "PATCH", "DELETE", "OPTIONS"], path: "/.well-known/*", policy: OPERATOR, handler: notPublished },
  /** Dynamic client registration (RFC 7591), rate limited per client address. */
  {
    methods: ["POST"],
    path: "/oauth/register",
    policy: PUBLIC,
    errors: "oauth",
    before: registrationLimit,
    handler: async (c) => oauthJson(await registerClient(await registrationBody(c)), 201),
  },
  /** The token endpoint (form-encoded, as OAuth requires); the code or refresh token is the credential. */
  { methods: ["POST"], path: "/oauth/token", policy: PUBLIC, errors: "oauth", handler: async (c) => oauthJson(await tokenRequest(await formBody(c, "token"))) },
  /** Token revocation (RFC 7009): 200 whether or not the token existed. */
  {
    methods: ["POST"],
    path: "/oauth/revoke",
    policy: PUBLIC,
    errors: "oauth",
    handler: async (c) => {
      await revokeOAuthToken(await formBody(c, "revocation"));
      return new Response(null, { status: 200, headers: { "cache-control": "no-store" } });
    },
  },
];

const policies = new TrieRouter<RoutePolicy>();
for (const route of API_ROUTES) for (const method of route.methods) policies.add(method, route.path, route.policy);

/**
 * The declared policy of the API route `method` and `path` would reach (HEAD as GET), or null for
 * a path no API route declares (a page, or an unknown API path: the guard's defaults apply).
 */
export function apiRoutePolicy(method: string, path: string): RoutePolicy | null {
  const [matches] = policies.match(method.toUpperCase() === "HEAD" ? "GET" : method.toUpperCase(), path);
  return matches.length > 0 ? matches[0][0] : null;
}

/**
 * What every API answer tells caches: it depends on who asked (a thread, the agents, a token) or
 * says nothing worth keeping (an error, the metadata a connector reads once), so no cache may
 * store it (RFC 9111 §5.2.2.5): neither a shared proxy in front, which would hand it to the next
 * caller of the URL, nor the browser's disk. `no-store` joins whatever an answer says already
 * (an event stream's `no-cache`), unless the route lets the caller's browser alone keep it
 * (`private`: an artifact's immutable bytes). Next's pages and static assets are Next's to mark.
 */
const noStore: MiddlewareHandler<BatonEnv> = async (c, next) => {
  await next();
  const directives = c.res.headers.get("cache-control");
  if (directives === null) c.header("cache-control", "no-store");
  else if (!/\b(?:no-store|private)\b/i.test(directives)) c.header("cache-control", `${directives}, no-store`);
};

/**
 * Every API route on one router, where a thrown error is answered once: Baton's JSON error with
 * its status (lib/http.ts; anything unknown is logged and answered 500). OAuth's endpoints sit in
 * a group that answers in OAuth's shape (RFC 6749) and hands on anything else. Unknown paths under
 * /api answer a JSON 404 (or 405 naming the methods).
 */
export function apiRouter(): Hono<BatonEnv> {
  const api = new Hono<BatonEnv>();
  api.onError((error) => errorResponse(error));
  api.use(noStore);
  const oauth = new Hono<BatonEnv>();
  oauth.onError((error) => oauthErrorResponse(error));
  for (const route of API_ROUTES) {
    const router = route.errors === "oauth" ? oauth : api;
    if (route.before) router.on([...route.methods], route.path, route.before, route.handler);
    else router.on([...route.methods], route.path, route.handler);
  }
  api.route("/", oauth);
  api.all("/api/*", (c) => {
    const allowed = allowedMethods(c.req.path);
    if (allowed.length === 0) {
      const trimmed = c.req.path.replace(/\/+$/, "");
      const hint = trimmed !== c.req.path && allowedMethods(trimmed).length > 0 ? ` (without the trailing slash: ${trimmed})` : "";
      return c.json({ error: { code: "NOT_FOUND", message: `no API route ${c.req.path}${hint}` } }, 404);
    }
    const allow = [...allowed, "OPTIONS"].join(", ");
    if (c.req.method === "OPTIONS") return c.body(null, 204, { allow });
    return c.json({ error: { code: "METHOD_NOT_ALLOWED", message: `${c.req.path} answers ${allow}` } }, 405, { allow });
  });
  return api;
}

/** The methods the routes declared for a path answer (HEAD with GET), for 405 and OPTIONS. */
function allowedMethods(path: string): string[] {
  const methods = new Set<string>();
  for (const route of API_ROUTES) {
    if (route.path.endsWith("*")) continue;
    // Exactly as the router matches: `/api/health/` is no route, so it is a 404, not a 405 naming GET.
    const pattern = new RegExp(`^${route.path.replace(/:[A-Za-z_]+/g, "[^/]+")}$`);
    if (pattern.test(path)) for (const method of route.methods) methods.add(method);
  }
  if (methods.has("GET")) methods.add("HEAD");
  return [...methods];
}

/** The declared routes' methods and paths (tests/route-policy.test.ts compares them with the router's). */
export const declaredApiRoutes = () => API_ROUTES.flatMap((route) => route.methods.map((method) => ({ method, path: route.path })));
