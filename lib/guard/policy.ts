/**
 * The guard's rules as pure functions of the environment and one request's facts, so every rule
 * is tested directly. What depends on the route (who may call it, its body limit) is read from the
 * API's own declarations (lib/server/api.ts); patterns remain only for Next's pages.
 * lib/guard/screen.ts applies them (and asks lib/auth who the caller is) to every request before
 * Next sees it; nothing else in Baton checks Host, Origin, content type or body size.
 */
import { apiRoutePolicy } from "../server/api";
import { BODY_LIMITS, KiB, type BodyClass } from "./body-limits";
import { proxyTrustFrom, type ProxyTrust } from "./client-address";
import { mediaType } from "./media-type";

export type GuardPolicy = {
  /** Hostnames (any port) or host:port pairs the Host header may name, lowercase. */
  allowedHosts: string[];
  /** Origins (scheme://host[:port]) besides the request's own that browsers may write from. */
  allowedOrigins: string[];
  /** BATON_AUTH=required: every request needs credentials, loopback included. */
  authRequired: boolean;
  /** BATON_TRUSTED_PROXIES: the peers whose X-Forwarded-For names a request's client address (client-address.ts). */
  trustProxy: ProxyTrust;
  /** Why the environment's policy cannot be used (one line), or null: the server refuses to start with it. */
  problem: string | null;
};

export type RequestFacts = {
  method: string;
  /** The URL path, without the query. */
  path: string;
  host: string | null;
  origin: string | null;
  secFetchSite: string | null;
  /** Sec-Fetch-Mode and Sec-Fetch-Dest: a navigation, or a load inside a page (image, script, fetch, event stream …). */
  secFetchMode: string | null;
  secFetchDest: string | null;
  contentType: string | null;
  contentLength: string | null;
  transferEncoding: string | null;
  /** The socket's peer address, as Node reports it (`::ffff:10.0.0.2`, `::1`, …). */
  peerAddress: string;
  /** The socket's local address: a client that connected to this IP may name it in Host. */
  localAddress: string;
  /** Whether the request carries a header a proxy adds (carriesForwarding). */
  forwarded: boolean;
};

export type Refusal = { ok: false; status: 400 | 401 | 403 | 411 | 413 | 415; reason: string };
/** A request that may go on: whether it is from Baton's own machine (isFromThisMachine), whether it needs credentials, its body limit. */
export type Screened = { ok: true; local: boolean; needsCredentials: boolean; bodyLimit: number };

export { BODY_LIMITS, KiB, type BodyClass } from "./body-limits";

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];
const FORWARDING_HEADERS = new Set(["forwarded", "via", "x-real-ip", "x-client-ip", "true-client-ip", "cf-connecting-ip"]);

/**
 * Whether a request's header names (lowercase, as Node gives them) show a proxy between the
 * client and Baton: Forwarded, Via, any X-Forwarded-* (nginx configurations often set only
 * X-Forwarded-Proto), or a client-address header.
 */
export function carriesForwarding(headerNames: Iterable<string>): boolean {
  for (const name of headerNames) if (FORWARDING_HEADERS.has(name) || name.startsWith("x-forwarded-")) return true;
  return false;
}

/**
 * A request from Baton's own machine: a loopback peer, addressed by a loopback name, with no proxy
 * in between. A proxy on the same machine is a loopback peer too; it gives itself away by a
 * forwarding header or by passing on the public name it was reached by.
 */
function isFromThisMachine(facts: Pick<RequestFacts, "peerAddress" | "host" | "forwarded">): boolean {
  const name = facts.host === null ? null : splitHost(facts.host)?.name;
  return isLoopbackAddress(facts.peerAddress) && !facts.forwarded && !!name && isLoopbackAddress(name);
}

const list = (value: string | undefined) =>
  (value ?? "")
    .split(",")
    .map((item) => item.trim().toLowerCase().replace(/\/+$/, ""))
    .filter(Boolean);

/** `::1` → `[::1]`: Host headers and URLs bracket IPv6 addresses. */
export function bracketed(address: string): string {
  return address.includes(":") && !address.startsWith("[") ? `[${address}]` : address;
}

/** Loopback, including IPv4-mapped IPv6 (`::ffff:127.0.0.1`) as Node reports dual-stack peers. */
export function isLoopbackAddress(address: string): boolean {
  const plain = address.trim().toLowerCase().replace(/^\[|\]$/g, "").replace(/^::ffff:(?=\d+\.)/, "");
  return plain === "localhost" || plain === "::1" || /^127(\.\d{1,3}){3}$/.test(plain);
}

/** The policy the environment sets: BATON_ALLOWED_HOSTS, BATON_ALLOWED_ORIGINS, BATON_AUTH, BATON_TRUSTED_PROXIES. */
export function guardPolicy(env: Readonly<Record<string, string | undefined>> = process.env): GuardPolicy {
  const proxies = proxyTrustFrom(env.BATON_TRUSTED_PROXIES);
  const auth = (env.BATON_AUTH ?? "").trim().toLowerCase();
  // A mistyped value (requried) must not leave the desk open for the operator who meant to close it.
  const authProblem =
    auth === "" || auth === "required" ? null : `BATON_AUTH is ${JSON.stringify(env.BATON_AUTH)}: set it to required (every request needs a token or a sign-in), or leave it unset`;
  return {
    trustProxy: proxies.trust,
    problem: proxies.problem ?? authProblem,
    allowedHosts: [...new Set([...LOOPBACK_NAMES, ...list(env.BATON_ALLOWED_HOSTS)])],
    allowedOrigins: [...new Set(list(env.BATON_ALLOWED_ORIGINS))],
    authRequired: auth === "required",
  };
}

/** `Example.com:3000` → `{ name: "example.com", withPort: "example.com:3000" }`. */
function splitHost(host: string): { name: string; withPort: string; port: number | null } | null {
  const value = host.trim().toLowerCase();
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]\s/@]+)(?::(\d{1,5}))?$/.exec(value);
  if (!match) return null;
  return { name: match[1], withPort: value, port: match[2] === undefined ? null : Number(match[2]) };
}

function hostAllowed(policy: GuardPolicy, host: string, localAddress: string): boolean {
  const parts = splitHost(host);
  if (!parts) return false;
  // The IP literal the client connected to cannot be a rebinding name.
  const local = bracketed(localAddress.toLowerCase().replace(/^::ffff:(?=\d+\.)/, ""));
  return parts.name === local || policy.allowedHosts.includes(parts.name) || policy.allowedHosts.includes(parts.withPort);
}

function originAllowed(policy: GuardPolicy, origin: string, host: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  // Same origin as the (already allowed) Host: the dashboard's own pages.
  if (url.host.toLowerCase() === host.trim().toLowerCase()) return true;
  return policy.allowedOrigins.includes(url.origin.toLowerCase());
}

/** The methods a body comes with, in the order a path's declared routes are asked for its limit. */
const WRITING_METHODS = ["POST", "PATCH", "PUT", "DELETE"];

/**
 * Which limit a path's body gets: an API route's as declared with it (lib/server/api.ts); a page's
 * (Next routes those, not Hono) by its pattern: the import page and an agent's page (ending a
 * shift sends its document) take the larger ones.
 */
export function bodyClassOf(path: string): BodyClass {
  for (const method of WRITING_METHODS) {
    const declared = apiRoutePolicy(method, path);
    if (declared) return declared.body;
  }
  if (path === "/import") return "import";
  if (/^\/agents\/[^/]+$/.test(path)) return "document";
  return "default";
}

const SAFE_METHODS = new Set(["GET", "HEAD"]);

/** A segment URL parsing resolves: `.` or `..`, also as `%2e` (an encoded slash inside a segment is no separator). */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * Whether the path names itself plainly: no dot segment and no backslash. Next resolves those as
 * URL parsing does (reading `\` as `/`), so `/api/handoffs/x/../../session` would pass the checks
 * made for `/api/handoffs/…` (what an agent token may reach) and land on another route. Browsers
 * resolve them before sending, so only a hand-made request carries one.
 */
function plainPath(path: string): boolean {
  return !path.includes("\\") && !path.split("/").some((segment) => DOT_SEGMENT.test(segment));
}

/** Whether Next can decode the path: a malformed escape would otherwise fail inside Next as a 500. */
function decodable(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * What HTTP/1.1 (RFC 9112, 3.2) says a server must refuse with 400 and Node lets through: a
 * request target that is not a path (more than one Host field is repeatedFieldRefusal's). The
 * absolute form (`GET http://other.example/…`) names a host of its own, which the router's URL
 * would take instead of the Host checked here; only proxies are sent it, and they forward a path.
 * A fragment is no part of any request target.
 */
export function requestTargetRefusal(target: string): Refusal | null {
  if (!target.startsWith("/")) {
    return { ok: false, status: 400, reason: "the request target must be a path (such as /api/health), not an absolute URL or *; this server is no proxy" };
  }
  // The router and Next drop a fragment, the checks here would not: `/handoffs/new#/export` read
  // as a thread's export (an agent token's) and was served as the operator's New handoff page.
  if (target.includes("#")) {
    return { ok: false, status: 400, reason: "the request target has a fragment (#…), which stays in the client; send the path and query only (encode a # in a value as %23)" };
  }
  return null;
}

/** Fields the guard reads that may be given once, by their names as people spell them. */
const SINGLETON_FIELDS = { host: "Host", authorization: "Authorization", "content-type": "Content-Type" } as const;

/**
 * A request giving Host (RFC 9112, 3.2), Authorization or Content-Type more than once, refused
 * with 400: Node keeps the first of each and drops the rest, a proxy in front may read the last
 * (one that adds its own Authorization after the client's), and which one was meant cannot be
 * told. `fields` is Node's headersDistinct.
 */
export function repeatedFieldRefusal(fields: Readonly<Record<string, readonly string[] | undefined>>): Refusal | null {
  for (const [name, spelled] of Object.entries(SINGLETON_FIELDS)) {
    const count = fields[name]?.length ?? 0;
    if (count > 1) return { ok: false, status: 400, reason: `the request has ${count} ${spelled} fields; send exactly one` };
  }
  return null;
}

/**
 * What makes a request line unusable, refused with 400 before anything builds a URL of it
 * (lib/server checks it at the socket, the router's URL parser would otherwise fail first): a
 * malformed escape, a dot segment or backslash (resolved, they would name another route than the
 * one checked), a Host naming a port no socket can have (0, 99999).
 */
export function requestLineRefusal(path: string, host: string | null): Refusal | null {
  if (!decodable(path)) {
    return { ok: false, status: 400, reason: "the request path has a malformed percent-escape (e.g. %E0%A4%A); encode it as UTF-8" };
  }
  if (!plainPath(path)) {
    return { ok: false, status: 400, reason: "the request path has a . or .. segment or a backslash; send the path it resolves to" };
  }
  const port = host ? splitHost(host)?.port : null;
  if (port === null || port === undefined || (port >= 1 && port <= 65535)) return null;
  return { ok: false, status: 400, reason: `Host "${host}" names port ${port}; a port is 1–65535` };
}

/** The media type of a Content-Type header, lowercase and without parameters. */
export { mediaType } from "./media-type";

/** Where a navigation puts Baton inside another site's page. Every answer refuses framing, so such a load can show nothing. */
const EMBEDDING_DESTINATIONS = ["object", "embed", "iframe", "frame", "fencedframe"];

/**
 * What Sec-Fetch-Site calls a page of another origin: another site, or `same-site`, which is
 * another origin too (a site is scheme and host, the port is no part of it): a page served on
 * another port of this machine (a dev server at http://localhost:5173, any local tool's page) is
 * same-site to the desk at http://localhost:3000, as a sibling subdomain is to a public name.
 * Baton's own pages are same-origin, and `none` is the operator typing the address.
 */
const OTHER_ORIGIN_SITES = new Set(["cross-site", "same-site"]);

/**
 * A browser loading something of Baton's inside another origin's page: an image, script, fetch,
 * event stream, frame or frame's subresource, anything but following a link (Fetch Metadata's
 * resource isolation policy, with frames refused too, and same-site pages held to it as
 * cross-site ones: on loopback every other port is same-site). No Baton answer is meant for that:
 * none carries CORS headers and none may be framed, so such a page cannot read or show them, but
 * it could still time them (how long a search takes says whether it found something) or hold
 * event streams open. Links from elsewhere (a chat, an OAuth redirect) are top-level navigations
 * and pass; clients other than browsers send no Sec-Fetch headers.
 */
function otherOriginLoad(facts: Pick<RequestFacts, "secFetchSite" | "secFetchMode" | "secFetchDest">): boolean {
  if (!OTHER_ORIGIN_SITES.has(facts.secFetchSite?.toLowerCase() ?? "")) return false;
  const embedded = EMBEDDING_DESTINATIONS.includes(facts.secFetchDest?.toLowerCase() ?? "");
  return facts.secFetchMode?.toLowerCase() !== "navigate" || embedded;
}

/**
 * Everything that can be decided from the request line and headers: Host, Origin and
 * Sec-Fetch-Site, body size and content type, and whether credentials will be needed.
 */
export function screenFacts(policy: GuardPolicy, facts: RequestFacts): Screened | Refusal {
  const badLine = requestLineRefusal(facts.path, facts.host);
  if (badLine) return badLine;
  if (!facts.host || !hostAllowed(policy, facts.host, facts.localAddress)) {
    return {
      ok: false,
      status: 403,
      reason: `Host "${facts.host ?? ""}" is not allowed; add it to BATON_ALLOWED_HOSTS if this server is meant to answer to that name`,
    };
  }
  const method = facts.method.toUpperCase();
  if (SAFE_METHODS.has(method) && otherOriginLoad(facts)) {
    return {
      ok: false,
      status: 403,
      reason: `a page from another site or another port may link to Baton but not load from it (Sec-Fetch-Site: ${facts.secFetchSite}, Sec-Fetch-Mode: ${facts.secFetchMode ?? "none"}); open the link instead`,
    };
  }
  if (!SAFE_METHODS.has(method)) {
    if (facts.secFetchSite?.toLowerCase() === "cross-site") {
      return { ok: false, status: 403, reason: "a cross-site page may not change anything in Baton (Sec-Fetch-Site: cross-site)" };
    }
    if (facts.origin !== null && !originAllowed(policy, facts.origin, facts.host)) {
      return {
        ok: false,
        status: 403,
        reason: `Origin "${facts.origin}" may not change anything in Baton; add it to BATON_ALLOWED_ORIGINS to let pages from it write`,
      };
    }
  }
  const bodyClass = bodyClassOf(facts.path);
  const bodyLimit = BODY_LIMITS[bodyClass];
  const declared = facts.contentLength === null ? null : Number(facts.contentLength);
  if (declared === null && facts.transferEncoding !== null) {
    // Without a declared length the body could only be measured after Next started reading it.
    return { ok: false, status: 411, reason: "send the body with a Content-Length header (chunked request bodies are not accepted)" };
  }
  if (declared !== null && !(Number.isSafeInteger(declared) && declared >= 0)) {
    return { ok: false, status: 413, reason: `Content-Length "${facts.contentLength}" is not a size Baton accepts` };
  }
  if (declared !== null && declared > bodyLimit) {
    return { ok: false, status: 413, reason: `the request body is ${declared} bytes; the limit for ${facts.path} is ${bodyLimit} bytes (${bodyLimit / KiB} KiB)` };
  }
  if (facts.path.startsWith("/api/") && !SAFE_METHODS.has(method) && (declared ?? 0) > 0 && mediaType(facts.contentType) !== "application/json") {
    return { ok: false, status: 415, reason: `send the body as JSON with Content-Type: application/json (got "${facts.contentType ?? "none"}")` };
  }
  const local = isFromThisMachine(facts);
  return { ok: true, local, needsCredentials: policy.authRequired || !local, bodyLimit };
}

/**
 * What is served without credentials: an API route declared public (lib/server/api.ts: the
 * sign-in endpoint, what a remote connector needs before it has a token, the health check), and
 * of Next's pages only the sign-in page and the static assets it loads (reading only: a POST
 * there could carry any server action).
 */
export function isPublicRequest(method: string, path: string): boolean {
  const declared = apiRoutePolicy(method, path);
  if (declared) return declared.access === "public";
  const reading = method === "GET" || method === "HEAD";
  return reading && (path === "/sign-in" || path.startsWith("/_next/static/") || path === "/favicon.ico");
}

/**
 * What an agent token (or a connector's grant) may reach: API routes declared for agents (the MCP
 * door and the thread/agent API), and of the pages only a thread's export; never token
 * management, other pages or server actions (which Next runs on any page path that receives one).
 * Given the request's `method`, the route it reaches decides, so an operator's route on an agent's
 * path stays the operator's; a method no route on the path declares goes on to the router's 405.
 */
export function agentMayReach(path: string, serverAction: boolean, method?: string): boolean {
  if (serverAction) return false;
  if (/^\/handoffs\/[^/]+\/export$/.test(path)) return true;
  const declared = method === undefined ? null : apiRoutePolicy(method, path);
  if (declared) return declared.access === "agent";
  return ["GET", ...WRITING_METHODS].some((each) => apiRoutePolicy(each, path)?.access === "agent");
}
