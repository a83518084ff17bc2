import "server-only";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { getRequestListener } from "@hono/node-server";
import next from "next";
import { startLeftoverSweeps } from "../agents";
import { hasTokens } from "../auth";
import { closeDatabase } from "../database";
import { markServing } from "../caller";
import { guardPolicy, holdContinue, isLoopbackAddress, noteReentry, repeatedFieldRefusal, requestLineRefusal, requestTargetRefusal, screenRequest, type GuardPolicy } from "../guard";
import { batonCommand } from "../paths.mjs";
import { startWebhookDispatcher } from "../webhooks";
import { createBatonApp, type PagesHandler } from "./app";
import { boundBodyTime, boundConnections, boundUnreadBody, BOUNDED_SERVER_OPTIONS, rawAnswer } from "./connection-bounds";
import { RAW_ANSWER_SECURITY_HEADERS } from "./security-headers";

/**
 * Baton's HTTP server: Node's http server, Baton's names dropped from every request at the
 * socket, and the router (lib/server/app.ts: the guard, the API, then Next for pages) behind
 * @hono/node-server's listener. `npm start` runs it compiled (scripts/build-server.ts).
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
export type BatonServer = {
  url: string;
  /**
   * Graceful shutdown: stops accepting connections, lets requests in flight finish (up to
   * `graceMs`; event streams end at once, their clients reconnect elsewhere with Last-Event-ID),
   * hands back the webhook deliveries this process claimed, then closes the database.
   */
  close: (options?: { graceMs?: number }) => Promise<void>;
};

/** How long a shutdown waits for requests in flight before closing their connections. */
export const SHUTDOWN_GRACE_MS = 10_000;

/** Answers still being written, event streams left out (they never finish by themselves). */
const inFlightOf = new WeakMap<http.Server, Set<http.ServerResponse>>();

/** Why this server must not start, or null: beyond loopback (or with BATON_AUTH=required) a token must exist. */
export async function startRefusal(host: string, policy: GuardPolicy): Promise<string | null> {
  if (policy.problem) return `baton: refusing to start: ${policy.problem}`;
  const beyondLoopback = !isLoopbackAddress(host);
  if (!beyondLoopback && !policy.authRequired) return null;
  if (await hasTokens()) return null;
  const why = beyondLoopback ? `it would listen on ${host}, beyond loopback,` : "BATON_AUTH=required is set";
  return `baton: refusing to start: ${why} and no access token exists; create one with \`${batonCommand()} token create --name NAME --role operator\``;
}

/** Header names that are Baton's own: a client may send them, nothing inside Baton reads them. */
const BATON_HEADER = /^x-baton-/i;

/**
 * Drops every header with a Baton name from a request before anything reads it: from Node's
 * parsed headers (materialized first, then edited) and from the raw list the router builds its
 * Request from.
 */
export function dropBatonHeaders(incoming: http.IncomingMessage): void {
  const { headers, headersDistinct, rawHeaders } = incoming;
  for (const name of Object.keys(headers)) {
    if (BATON_HEADER.test(name)) {
      delete headers[name];
      delete headersDistinct[name];
    }
  }
  const kept: string[] = [];
  for (let index = 0; index < rawHeaders.length; index += 2) if (!BATON_HEADER.test(rawHeaders[index])) kept.push(rawHeaders[index], rawHeaders[index + 1]);
  rawHeaders.splice(0, rawHeaders.length, ...kept);
}

/** An http.Server serving Baton's router; `pages` (Next) serves what the API does not. */
export function createBatonHttpServer(options: { policy: GuardPolicy; pages?: PagesHandler; dev?: boolean; onServerError?: ServerErrorListener }): http.Server {
  const app = createBatonApp(options);
  const listener = getRequestListener(app.fetch, {
    // Next shares this process and Node's own Request and Response.
    overrideGlobalObjects: false,
    // A request line Node accepted but no URL can be made of (a Host such as `localhost:99999`).
    errorHandler: () => Response.json({ error: { code: "BAD_REQUEST", message: "the request's Host and path do not make a URL" } }, { status: 400 }),
  });
  const inFlight = new Set<http.ServerResponse>();
  const continueHeld = new WeakSet<http.IncomingMessage>();
  const server = http.createServer(BOUNDED_SERVER_OPTIONS, (incoming, outgoing) => {
    noteReentry(incoming);
    dropBatonHeaders(incoming);
    boundUnreadBody(incoming, outgoing);
    const startBodyClock = boundBodyTime(incoming, outgoing);
    // A client waiting for 100 Continue sends nothing before it: its body's time starts there, not while the guard decides.
    if (continueHeld.has(incoming)) holdContinue(incoming, startBodyClock);
    else startBodyClock();
    const badLine =
      repeatedFieldRefusal(incoming.headersDistinct) ??
      requestTargetRefusal(incoming.url ?? "/") ??
      requestLineRefusal((incoming.url ?? "/").split("?")[0], incoming.headers.host ?? null);
    if (badLine) {
      outgoing.writeHead(badLine.status, { ...RAW_ANSWER_SECURITY_HEADERS, "content-type": "application/json", "cache-control": "no-store" });
      outgoing.end(JSON.stringify({ error: { code: "REFUSED", message: badLine.reason } }));
      return;
    }
    // A stream is a GET (/api/events, an MCP session's stream). MCP clients name text/event-stream
    // in the Accept of every POST too: counted as streams, their calls were cut off at shutdown.
    const eventStream = incoming.method === "GET" && (/text\/event-stream/.test(incoming.headers.accept ?? "") || (incoming.url ?? "").startsWith("/api/events"));
    if (!eventStream) {
      inFlight.add(outgoing);
      outgoing.once("close", () => inFlight.delete(outgoing));
    }
    outgoing.once("finish", () => {
      if (outgoing.statusCode < 500) return;
      const path = (incoming.url ?? "/").split("?")[0];
      // The health check's 503 says the database is down, which the check logs itself once per
      // outage (api.ts's reportHealth): a load balancer asks every few seconds.
      if (path === "/api/health" && outgoing.statusCode === 503) return;
      const line = `baton: answered ${outgoing.statusCode} to ${incoming.method} ${path}`;
      console.error(line);
      options.onServerError?.(line);
    });
    void listener(incoming, outgoing);
  });
  // `Expect: 100-continue`: the guard, not Node, asks for the body, once it has admitted the request.
  server.on("checkContinue", (incoming: http.IncomingMessage, outgoing: http.ServerResponse) => {
    continueHeld.add(incoming);
    server.emit("request", incoming, outgoing);
  });
  server.on("clientError", answerClientError);
  boundConnections(server, options.policy);
  inFlightOf.set(server, inFlight);
  // What handoffs killed midway left goes once the server serves, not at the agent's next handoff.
  server.once("listening", () => {
    const sweeps = startLeftoverSweeps();
    server.once("close", sweeps.stop);
  });
  return server;
}

/** Stops accepting, waits up to `graceMs` for the answers in flight, then closes every connection. */
async function drain(server: http.Server, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const inFlight = inFlightOf.get(server) ?? new Set();
  const deadline = Date.now() + graceMs;
  server.closeIdleConnections();
  while (inFlight.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  server.closeAllConnections();
  await closed;
}

/**
 * What Node's own parser refuses before any handler runs (a request line and headers over its
 * 16 KiB limit, a malformed request), answered in Baton's JSON shape instead of an empty body.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const [status, text, message] =
    error.code === "HPE_HEADER_OVERFLOW"
      ? [431, "Request Header Fields Too Large", "the request line and headers are over 16 KiB; send a shorter URL (IDs and filters are short)"]
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [408, "Request Timeout", "the request did not arrive in time; send it at once"]
        : [400, "Bad Request", "the request could not be parsed as HTTP/1.1"];
  rawAnswer(socket, status, text, { error: { code: status === 408 ? "REQUEST_TIMEOUT" : "REFUSED", message } });
}

export async function startBatonServer(options: BatonServerOptions): Promise<BatonServer> {
  const policy = guardPolicy(options.env);
  const refusal = await startRefusal(options.host, policy);
  if (refusal) throw new Error(refusal);
  const nextApp = next({ dev: options.dev ?? false, dir: options.dir, hostname: options.host, port: options.port });
  await nextApp.prepare();
  const server = createBatonHttpServer({ policy, pages: nextApp.getRequestHandler(), dev: options.dev, onServerError: options.onServerError });
  // From here on, code that lost its request's caller fails instead of acting as this machine.
  markServing();
  if (options.dev) {
    // Hot reload's websocket: the same guard, never beyond loopback.
    const upgrade = nextApp.getUpgradeHandler();
    server.on("upgrade", async (request, socket, head) => {
      dropBatonHeaders(request);
      const verdict = await screenRequest(policy, request);
      if (!verdict.ok || !verdict.caller.local) return socket.destroy();
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
    close: async ({ graceMs = SHUTDOWN_GRACE_MS } = {}) => {
      await drain(server, graceMs);
      await dispatcher.stop();
      await closeDatabase();
    },
  };
}
