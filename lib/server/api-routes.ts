import "server-only";
import fs from "node:fs";
import type http from "node:http";
import path from "node:path";
import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { pathToFileURL } from "node:url";

/**
 * The JSON API's route handlers (app/api/**\/route.ts), called by Baton's server directly instead
 * of through Next's request pipeline: an append through Next's router, render plumbing and
 * proxy.ts cost several times the append itself (bench speed: REST ~300/s against ~1,200/s
 * handed straight to the handler). The file tree stays the one route table: it is read at start,
 * `[name]` folders become parameters, and the handlers are the same Web `Request → Response`
 * functions Next would call. Behind the guard like everything else (lib/guard).
 *
 * `/api/health` stays with Next on purpose: it says that Next, which serves the dashboard,
 * answers. A route folder of another kind (catch-all, group) would also go to Next.
 */
const NEXT_ONLY = new Set(["/api/health"]);
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Response | Promise<Response>;
type RouteModule = Partial<Record<(typeof METHODS)[number], Handler>>;
type ApiRoute = { pattern: string; segments: string[]; file: string; module?: Promise<RouteModule> };
export type ApiMatch = { route: ApiRoute; params: Record<string, string> };

const PARAM = /^\[([A-Za-z_][A-Za-z0-9_]*)\]$/;
const PLAIN = /^[A-Za-z0-9_.-]+$/;

function routeFiles(folder: string, segments: string[], found: ApiRoute[]): void {
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      routeFiles(path.join(folder, entry.name), [...segments, entry.name], found);
    } else if (entry.name === "route.ts" && segments.every((segment) => PARAM.test(segment) || PLAIN.test(segment))) {
      const pattern = `/api/${segments.join("/")}`;
      if (!NEXT_ONLY.has(pattern)) found.push({ pattern, segments: ["api", ...segments], file: path.join(folder, entry.name) });
    }
  }
}

/** The API routes under `<dir>/app/api`, fixed segments before parameters (as Next ranks them). */
export function apiRoutes(dir: string): ApiRoute[] {
  const found: ApiRoute[] = [];
  const root = path.join(dir, "app", "api");
  if (fs.existsSync(root)) routeFiles(root, [], found);
  const rank = (route: ApiRoute) => route.segments.map((segment) => (PARAM.test(segment) ? "1" : "0")).join("");
  return found.sort((a, b) => rank(a).localeCompare(rank(b)));
}

/** The route a path names, with its parameters (percent-decoded, as Next gives them), or null. */
export function matchApiRoute(routes: ApiRoute[], pathname: string): ApiMatch | null {
  const parts = pathname.split("/").slice(1);
  if (parts[parts.length - 1] === "") parts.pop();
  for (const route of routes) {
    if (route.segments.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const matches = route.segments.every((segment, index) => {
      const param = PARAM.exec(segment);
      if (!param) return segment === parts[index];
      // The guard already refused malformed escapes, so this cannot throw.
      params[param[1]] = decodeURIComponent(parts[index]);
      return parts[index] !== "";
    });
    if (matches) return { route, params };
  }
  return null;
}

/**
 * The Web Request for an admitted request. Its body is read whole first (the guard has already
 * bounded it by its declared length): a handler that answers without reading it (a 405, an
 * unknown ID) would otherwise leave the client still sending into a reset connection.
 */
async function webRequest(incoming: http.IncomingMessage, signal: AbortSignal): Promise<Request> {
  const headers = new Headers();
  for (const [name, values] of Object.entries(incoming.headersDistinct)) for (const value of values ?? []) headers.append(name, value);
  const method = incoming.method ?? "GET";
  const chunks: Buffer[] = [];
  if (method !== "GET" && method !== "HEAD") for await (const chunk of incoming) chunks.push(chunk as Buffer);
  return new Request(new URL(incoming.url ?? "/", `http://${incoming.headers.host ?? "localhost"}`), {
    method,
    headers,
    signal,
    body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
  });
}

/** The methods a route answers: its handlers', HEAD with GET, and OPTIONS. */
function allowedMethods(handlers: RouteModule): string {
  return METHODS.filter((method) => handlers[method] || (method === "HEAD" && handlers.GET) || method === "OPTIONS").join(", ");
}

/** The handler's answer for a request, with Next's rules for HEAD (GET without a body), OPTIONS and 405. */
async function answer(match: ApiMatch, request: Request): Promise<Response> {
  match.route.module ??= import(pathToFileURL(match.route.file).href) as Promise<RouteModule>;
  const handlers = await match.route.module;
  const method = request.method as (typeof METHODS)[number];
  const handler = handlers[method] ?? (method === "HEAD" ? handlers.GET : undefined);
  if (!handler) {
    const allow = allowedMethods(handlers);
    if (method === "OPTIONS") return new Response(null, { status: 204, headers: { allow } });
    return Response.json({ error: { code: "METHOD_NOT_ALLOWED", message: `this route answers ${allow}` } }, { status: 405, headers: { allow } });
  }
  return handler(request, { params: Promise.resolve(match.params) });
}

/** Serves an admitted request with its route's handler, streaming the answer (SSE included). */
export function serveApiRoute(match: ApiMatch, incoming: http.IncomingMessage, outgoing: http.ServerResponse): Promise<void> {
  return serveWebHandler((request) => answer(match, request), match.route.pattern, incoming, outgoing);
}

/**
 * Answers a Node request with a Web `Request → Response` handler: the request's signal aborts
 * when the client goes away before the answer ended, a throw becomes a logged 500, several
 * Set-Cookie headers stay several, and the body streams as it comes. `name` names the handler in
 * the log.
 */
export async function serveWebHandler(
  handler: (request: Request) => Response | Promise<Response>,
  name: string,
  incoming: http.IncomingMessage,
  outgoing: http.ServerResponse,
): Promise<void> {
  const aborted = new AbortController();
  outgoing.once("close", () => {
    if (!outgoing.writableFinished) aborted.abort();
  });
  let response: Response;
  try {
    response = await handler(await webRequest(incoming, aborted.signal));
  } catch (error) {
    console.error(`baton: the handler of ${name} failed`, error);
    response = Response.json({ error: { code: "INTERNAL", message: "Baton could not answer this request; see the server log" } }, { status: 500 });
  }
  const headers: http.OutgoingHttpHeaders = {};
  response.headers.forEach((value, header) => {
    if (header !== "set-cookie") headers[header] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  outgoing.writeHead(response.status, headers);
  if (!response.body || incoming.method === "HEAD") {
    await response.body?.cancel();
    outgoing.end();
    return;
  }
  const body = Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>);
  outgoing.once("close", () => body.destroy());
  body.pipe(outgoing);
}
