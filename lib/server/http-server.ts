import "server-only";
import http from "node:http";
import type { AddressInfo } from "node:net";
import next from "next";
import { hasTokens } from "../auth";
import { oauthUrls, publicBaseUrl } from "../oauth";
import { startWebhookDispatcher } from "../webhooks";
import { apiRoutes, matchApiRoute, serveApiRoute } from "./api-routes";
import { carriesOwnStamp, guardPolicy, isLoopbackAddress, screenRequest, stampAdmitted, stripGuardHeaders, type GuardPolicy, type Verdict } from "../guard";

/**
 * Baton's HTTP server: Node's http server with the guard in front of Next's request handler.
 * A custom server rather than proxy.ts alone, because only the socket knows the peer's address
 * (NextRequest carries none) and only here can a body be refused before Next reads it. Admitted
 * requests for the JSON API go straight to their route handlers (api-routes.ts); pages, server
 * actions and the rest go to Next.
 */
export type BatonServerOptions = {
  dir: string;
  host: string;
  port: number;
  dev?: boolean;
  env?: Readonly<Record<string, string | undefined>>;
  /** Called for every 5xx answer, after it is logged (the e2e server records them: none may happen). */
  onServerError?: ServerErrorListener;
};
export type ServerErrorListener = (line: string) => void;
export type BatonServer = { url: string; close: () => Promise<void> };

/** Why this server must not start, or null: beyond loopback (or with BATON_AUTH=required) a token must exist. */
export async function startRefusal(host: string, policy: GuardPolicy): Promise<string | null> {
  const beyondLoopback = !isLoopbackAddress(host);
  if (!beyondLoopback && !policy.authRequired) return null;
  if (await hasTokens()) return null;
  const why = beyondLoopback ? `it would listen on ${host}, beyond loopback,` : "BATON_AUTH=required is set";
  return `baton: refusing to start: ${why} and no access token exists; create one with \`npx baton token create --name NAME --role operator\``;
}

const jsonRpcPaths = new Set(["/api/mcp"]);

function refuse(response: http.ServerResponse, path: string, verdict: Exclude<Verdict, { ok: true }>, url: string, host: string | null): void {
  if (verdict.status === 401 && verdict.signIn) {
    response.writeHead(303, { location: `/sign-in?next=${encodeURIComponent(url)}`, "cache-control": "no-store" });
    response.end();
    return;
  }
  const body = jsonRpcPaths.has(path)
    ? { jsonrpc: "2.0", error: { code: -32000, message: verdict.reason }, id: null }
    : { error: { code: verdict.status === 401 ? "UNAUTHENTICATED" : "REFUSED", message: verdict.reason } };
  const headers: Record<string, string> = { "content-type": "application/json", "cache-control": "no-store" };
  if (verdict.status === 401) {
    // On the MCP endpoint, the 401 tells a connector where its OAuth discovery starts (RFC 9728 §5.1).
    headers["www-authenticate"] = jsonRpcPaths.has(path) ? `Bearer realm="baton", resource_metadata="${oauthUrls(publicBaseUrl(host)).protectedResourceMetadata}"` : 'Bearer realm="baton"';
  }
  // The body was not read: close the connection rather than let the client keep sending it.
  if (verdict.status === 413 || verdict.status === 411) headers.connection = "close";
  response.writeHead(verdict.status, headers);
  response.end(JSON.stringify(body));
}

type NodeHandler = (request: http.IncomingMessage, response: http.ServerResponse) => Promise<void>;

/** An http.Server that screens every request with the guard and hands the admitted ones to `handle`. */
export function createGuardedServer(policy: GuardPolicy, handle: NodeHandler, onServerError?: ServerErrorListener): http.Server {
  return http.createServer(async (request, response) => {
    if (carriesOwnStamp(request)) return handle(request, response);
    stripGuardHeaders(request);
    const url = request.url ?? "/";
    const path = url.split("?")[0];
    response.once("finish", () => {
      if (response.statusCode < 500) return;
      const line = `baton: answered ${response.statusCode} to ${request.method} ${path}`;
      console.error(line);
      onServerError?.(line);
    });
    let verdict: Verdict;
    try {
      verdict = await screenRequest(policy, request);
    } catch (error) {
      console.error("baton: the guard failed", error);
      response.writeHead(503, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { code: "UNAVAILABLE", message: "Baton could not check this request; see the server log" } }));
      return;
    }
    if (!verdict.ok) return refuse(response, path, verdict, url, request.headers.host ?? null);
    stampAdmitted(request, verdict.caller);
    await handle(request, response);
  });
}

export async function startBatonServer(options: BatonServerOptions): Promise<BatonServer> {
  const policy = guardPolicy(options.env);
  const refusal = await startRefusal(options.host, policy);
  if (refusal) throw new Error(refusal);
  const app = next({ dev: options.dev ?? false, dir: options.dir, hostname: options.host, port: options.port });
  await app.prepare();
  const nextHandler = app.getRequestHandler();
  // In development Next serves the API too, so edited handlers reload.
  const routes = options.dev ? [] : apiRoutes(options.dir);
  const handle: NodeHandler = async (request, response) => {
    const match = matchApiRoute(routes, (request.url ?? "/").split("?")[0]);
    return match ? serveApiRoute(match, request, response) : nextHandler(request, response);
  };
  const server = createGuardedServer(policy, handle, options.onServerError);
  if (options.dev) {
    // Hot reload's websocket: same Host rule, never beyond loopback.
    const upgrade = app.getUpgradeHandler();
    server.on("upgrade", async (request, socket, head) => {
      stripGuardHeaders(request);
      const verdict = await screenRequest(policy, request);
      if (!verdict.ok) return socket.destroy();
      await upgrade(request, socket, head);
    });
  }
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  // Webhooks are sent from the one long-lived process: this server.
  const dispatcher = startWebhookDispatcher();
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${hostForUrl}:${address.port}`,
    close: async () => {
      await dispatcher.stop();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}
