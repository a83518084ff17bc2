import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Who may call /api/mcp, from the MCP transport guidance: Host and Origin allow-lists against
 * DNS rebinding, a bearer token whenever the dashboard listens beyond loopback, a body limit.
 * Pure functions of the environment and the request's headers, so they are tested directly.
 */
export type McpHttpPolicy = {
  /** Hostnames (any port) or host:port pairs the Host header may name, lowercase. */
  allowedHosts: string[];
  /** Origins (scheme://host[:port]) or bare hostnames (any scheme and port) browsers may call from. */
  allowedOrigins: string[];
  /** BATON_MCP_TOKEN; when set, every request must carry it. */
  token: string | null;
  /** BATON_LISTEN_HOST, the address the dashboard listens on (unset = loopback). */
  listenHost: string;
  /** Listening beyond loopback: a token is required and no request passes without one configured. */
  beyondLoopback: boolean;
  maxBodyBytes: number;
};

export type McpRequestFacts = {
  host: string | null;
  origin: string | null;
  authorization: string | null;
  contentLength: string | null;
};

export type McpVerdict = { ok: true } | { ok: false; status: 401 | 403 | 413; reason: string };

export const MAX_MCP_BODY_BYTES = 1024 * 1024;
const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];
const WILDCARD_ADDRESSES = ["0.0.0.0", "::", "[::]", "*"];

const list = (value: string | undefined) =>
  (value ?? "")
    .split(",")
    .map((item) => item.trim().toLowerCase().replace(/\/+$/, ""))
    .filter(Boolean);

/** `::1` → `[::1]`: Host headers and URLs bracket IPv6 addresses. */
function bracketed(address: string): string {
  return address.includes(":") && !address.startsWith("[") ? `[${address}]` : address;
}

export function isLoopbackAddress(address: string): boolean {
  const name = bracketed(address.trim().toLowerCase());
  return LOOPBACK_NAMES.includes(name) || /^127(\.\d{1,3}){3}$/.test(name);
}

/** The policy the environment sets (BATON_LISTEN_HOST, BATON_MCP_TOKEN, BATON_MCP_ALLOWED_HOSTS / _ORIGINS). */
export function mcpHttpPolicy(env: Readonly<Record<string, string | undefined>> = process.env): McpHttpPolicy {
  const listenHost = env.BATON_LISTEN_HOST?.trim() || "127.0.0.1";
  const listenName = bracketed(listenHost.toLowerCase());
  // A specific address the dashboard listens on is a name clients legitimately use.
  const listenAllowed = WILDCARD_ADDRESSES.includes(listenName) || isLoopbackAddress(listenName) ? [] : [listenName];
  return {
    allowedHosts: [...new Set([...LOOPBACK_NAMES, ...listenAllowed, ...list(env.BATON_MCP_ALLOWED_HOSTS)])],
    allowedOrigins: [...new Set([...LOOPBACK_NAMES, ...listenAllowed, ...list(env.BATON_MCP_ALLOWED_ORIGINS)])],
    token: env.BATON_MCP_TOKEN?.trim() || null,
    listenHost,
    beyondLoopback: !isLoopbackAddress(listenHost),
    maxBodyBytes: MAX_MCP_BODY_BYTES,
  };
}

/** `Example.com:3000` → `{ name: "example.com", withPort: "example.com:3000" }`. */
function splitHost(host: string): { name: string; withPort: string } | null {
  const value = host.trim().toLowerCase();
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]\s/]+)(?::(\d{1,5}))?$/.exec(value);
  if (!match) return null;
  return { name: match[1], withPort: value };
}

function hostAllowed(policy: McpHttpPolicy, host: string): boolean {
  const parts = splitHost(host);
  return !!parts && (policy.allowedHosts.includes(parts.name) || policy.allowedHosts.includes(parts.withPort));
}

function originAllowed(policy: McpHttpPolicy, origin: string, host: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  const name = url.hostname.toLowerCase();
  // Same origin as the (already allowed) Host: the dashboard's own pages.
  if (url.host.toLowerCase() === host.trim().toLowerCase()) return true;
  return policy.allowedOrigins.includes(name) || policy.allowedOrigins.includes(url.origin.toLowerCase());
}

const digest = (value: string) => createHash("sha256").update(value).digest();

function tokenMatches(expected: string, authorization: string | null): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  return !!match && timingSafeEqual(digest(match[1]), digest(expected));
}

/** Whether a request may reach the MCP server, and if not, the status and a one-line reason. */
export function checkMcpRequest(policy: McpHttpPolicy, facts: McpRequestFacts): McpVerdict {
  if (!facts.host || !hostAllowed(policy, facts.host)) {
    return {
      ok: false,
      status: 403,
      reason: `Host "${facts.host ?? ""}" is not allowed; add it to BATON_MCP_ALLOWED_HOSTS if this server is meant to answer to that name`,
    };
  }
  if (facts.origin !== null && !originAllowed(policy, facts.origin, facts.host)) {
    return {
      ok: false,
      status: 403,
      reason: `Origin "${facts.origin}" is not allowed; add it to BATON_MCP_ALLOWED_ORIGINS to let pages from it call Baton`,
    };
  }
  if (policy.token === null && policy.beyondLoopback) {
    return {
      ok: false,
      status: 403,
      reason: `MCP over HTTP is off: Baton listens on ${policy.listenHost}, beyond loopback, and BATON_MCP_TOKEN is not set`,
    };
  }
  if (policy.token !== null && !tokenMatches(policy.token, facts.authorization)) {
    return {
      ok: false,
      status: 401,
      reason: facts.authorization
        ? "the bearer token is wrong; send Authorization: Bearer <BATON_MCP_TOKEN>"
        : "a bearer token is required; send Authorization: Bearer <BATON_MCP_TOKEN>",
    };
  }
  const length = facts.contentLength === null ? 0 : Number(facts.contentLength);
  if (Number.isFinite(length) && length > policy.maxBodyBytes) {
    return { ok: false, status: 413, reason: `the request body is ${length} bytes; the limit is ${policy.maxBodyBytes}` };
  }
  return { ok: true };
}

export function requestFacts(request: Request): McpRequestFacts {
  return {
    host: request.headers.get("host"),
    origin: request.headers.get("origin"),
    authorization: request.headers.get("authorization"),
    contentLength: request.headers.get("content-length"),
  };
}
