import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";
import { guardPolicy } from "../../lib/guard";
import { createBatonHttpServer } from "../../lib/server";

/**
 * Baton's own HTTP server (lib/server: the guard, the router, every API route) on a free loopback
 * port, without Next: what `npm start` runs for every path but pages. Tests reach it over a real
 * socket, so the caller is what the guard decides from the connection, never something a test
 * injects. `env` sets the guard's policy (BATON_AUTH, BATON_ALLOWED_HOSTS …).
 */
export type ApiServer = {
  origin: string;
  /** fetch() against this server: `path` is joined to its origin. */
  fetch: (path: string, init?: RequestInit) => Promise<Response>;
  /**
   * A route as a `(request, { params }?) => Response` function, for tests written against route
   * handlers: the request is sent over the socket to `pattern` with its `:id` taken from `params`
   * (else the request's own path), its query, body and abort signal kept; a string body without a
   * type of its own is sent as JSON.
   */
  route: (method: string, pattern: string) => RouteFunction;
  close: () => Promise<void>;
};
export type RouteFunction = (request: Request, context?: { params: Promise<Record<string, string>> }) => Promise<Response>;

export async function serveApi(env: Readonly<Record<string, string | undefined>> = {}): Promise<ApiServer> {
  const server = createBatonHttpServer({ policy: guardPolicy(env) });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const send = (path: string, init?: RequestInit) => fetch(`${origin}${path}`, init);
  const route =
    (method: string, pattern: string): RouteFunction =>
    async (request, context) => {
      const url = new URL(request.url);
      const params = context ? await context.params : null;
      const path = params ? pattern.replace(/:([A-Za-z_]+)/g, (_, name: string) => encodeURIComponent(params[name] ?? "")) : url.pathname;
      // The bytes as given: text() would turn bytes that are not UTF-8 into U+FFFD before the server saw them.
      const bytes = method === "GET" || method === "HEAD" ? undefined : new Uint8Array(await request.arrayBuffer());
      const body = bytes && bytes.length > 0 ? bytes : undefined;
      const headers = new Headers(request.headers);
      // A Request made with a string body says text/plain unless told otherwise: JSON is what the tests mean.
      if (body && (!headers.has("content-type") || headers.get("content-type") === "text/plain;charset=UTF-8")) headers.set("content-type", "application/json");
      return send(`${path}${url.search}`, { method, headers, body, signal: request.signal });
    };
  return {
    origin,
    fetch: send,
    route,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Routes of a server that starts later (in beforeAll): each is looked up when called. */
export const lazyRoutes =
  (server: () => ApiServer) =>
  (method: string, pattern: string): RouteFunction =>
  (request, context) =>
    server().route(method, pattern)(request, context);

/** One server for the whole test file: started in beforeAll, closed in afterAll, usable from the file's top level. */
export function apiServerForFile(env: Readonly<Record<string, string | undefined>> = {}): Omit<ApiServer, "close"> {
  let server: ApiServer | undefined;
  beforeAll(async () => {
    server = await serveApi(env);
  });
  afterAll(() => server?.close());
  const live = () => {
    if (!server) throw new Error("the API server starts in beforeAll");
    return server;
  };
  return {
    get origin() {
      return live().origin;
    },
    fetch: (path, init) => live().fetch(path, init),
    route: lazyRoutes(live),
  };
}
