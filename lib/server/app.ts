import "server-only";
import type { IncomingMessage, ServerResponse } from "node:http";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import { Hono } from "hono";
import { DroppedStream } from "../changes";
import { isDomainError } from "../errors";
import { guard, issueReentryTicket, type BatonEnv, type GuardPolicy } from "../guard";
import { errorResponse } from "../http";
import { screenedActionRequest } from "./action-body";
import { apiRouter } from "./api";
import { servingPage } from "./page-status";
import { apiSecurityHeaders, newNonce, pageContentSecurityPolicy, pageSecurityHeaders } from "./security-headers";

/** Next's request handler: pages, server actions, static files. */
export type PagesHandler = (request: IncomingMessage, response: ServerResponse) => Promise<void>;

/** What the dashboard's paths answer: pages and downloads (GET, HEAD) and server actions (POST). */
const PAGE_METHODS = ["GET", "HEAD", "POST"];

export type BatonAppOptions = {
  policy: GuardPolicy;
  /** Who serves everything the API does not: Next. Without it (API-only servers) other paths are 404. */
  pages?: PagesHandler;
  dev?: boolean;
};

/**
 * An event stream's body (/api/events, an MCP session's stream) as it is written to `outgoing`:
 * when the stream fails, its connection is dropped with what was queued on it, and the failure is
 * said here. A DroppedStream (a client that stopped reading, given up on purpose) is one line, its
 * message; anything else keeps its stack. @hono/node-server drops the connection of a failing body
 * too, but logs every failure with its stack, and a server with clients that leave tabs asleep
 * filled its log with them.
 */
function droppedOnFailure(body: ReadableStream<Uint8Array>, outgoing: ServerResponse): ReadableStream<Uint8Array> {
  const source = body.getReader();
  // As soon as it fails, not at the next read: a client that stopped reading is never read for.
  source.closed.catch((error: unknown) => {
    if (error instanceof DroppedStream) console.error(error.message);
    else console.error("baton: an event stream failed; its connection was dropped", error);
    outgoing.destroy();
  });
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await source.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch {
          // The source failed (its connection is dropped above, and the socket's close cancels
          // this stream), or the client left while this read waited (this stream is cancelled).
        }
      },
      // The client went away: the stream's own cancel ends its subscription and gives back its slot.
      cancel: (reason) => source.cancel(reason),
    },
    // Reads from the source only when the socket takes more: what waits is counted in the source's queue, as its bound expects.
    { highWaterMark: 0 },
  );
}

/**
 * Baton's whole HTTP surface on one Hono app: security headers and the guard first (every request,
 * every path), then the API routes (lib/server/api.ts), then Next for pages and server
 * actions, which gets Node's own request and response and writes the answer itself, under the
 * caller the guard set (lib/caller.ts).
 */
export function createBatonApp(options: BatonAppOptions): Hono<BatonEnv> {
  const app = new Hono<BatonEnv>();
  app.onError((error, c) => {
    // A domain error from before the API's router (the guard's look-up of a token on a busy database) is answered as the router answers it.
    if (isDomainError(error)) return errorResponse(error);
    console.error(`baton: ${c.req.method} ${c.req.path} failed`, error);
    return c.json({ error: { code: "INTERNAL", message: "Baton could not answer this request; see the server log" } }, 500);
  });
  // A handler whose request was answered under it (a 408 for a body too slow, written by the
  // server: lib/server/connection-bounds.ts) ends when its read of the body fails; what it answers
  // then has nowhere to go.
  app.use(async (c, next) => {
    await next();
    if (c.env.outgoing.headersSent) c.res = RESPONSE_ALREADY_SENT;
  });
  // First, so the guard's refusals carry them too.
  app.use(apiSecurityHeaders);
  app.use(guard(options.policy));
  // Hono answers HEAD by running the GET route and dropping its body unread. An event stream's
  // body would then never end, and never give back its stream slot or subscription: cancelling it
  // ends the stream as a client's leaving does.
  app.use(async (c, next) => {
    await next();
    if (c.req.method === "HEAD" && c.res.body) await c.res.body.cancel();
  });
  // An event stream that fails drops its connection and says why in the log (droppedOnFailure).
  app.use(async (c, next) => {
    await next();
    const body = c.res.body;
    if (body && c.res.headers.get("content-type")?.startsWith("text/event-stream")) c.res = new Response(droppedOnFailure(body, c.env.outgoing), c.res);
  });
  app.route("/", apiRouter());
  app.all("*", async (c) => {
    const { pages } = options;
    if (!pages) return c.json({ error: { code: "NOT_FOUND", message: `nothing is served at ${c.req.path}` } }, 404);
    // Next answers TRACE with a 500 and renders a page for any other method; its pages, downloads
    // and server actions take these.
    if (!PAGE_METHODS.includes(c.req.method)) {
      const allow = PAGE_METHODS.join(", ");
      return c.json({ error: { code: "METHOD_NOT_ALLOWED", message: `${c.req.path} is the dashboard's: it answers ${allow}` } }, 405, { allow });
    }
    const { outgoing } = c.env;
    const screened = await screenedActionRequest(c.env.incoming);
    if ("refusal" in screened) return c.json({ error: { code: "INVALID", message: `${screened.refusal}; nothing was done` } }, 400);
    const incoming = screened.request;
    const policy = pageContentSecurityPolicy(newNonce(), options.dev);
    // Next reads the nonce for its scripts from the request's CSP; whatever a client sent is replaced.
    incoming.headers["content-security-policy"] = policy;
    pageSecurityHeaders(outgoing, policy);
    issueReentryTicket(incoming, outgoing, c.var.caller);
    await servingPage(outgoing, () => pages(incoming, outgoing));
    return RESPONSE_ALREADY_SENT;
  });
  return app;
}
