import "server-only";
import { randomUUID } from "node:crypto";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { callerKey, type Caller } from "../caller";
import { DroppedStream } from "../changes";
import { endWhenRevoked } from "../guard/revocation-watch";
import { createMcpServer } from "./create-server";
import { parsed, type McpMessage } from "./http-message";

/**
 * Streamable HTTP sessions, for what a stateless exchange cannot carry: notifications the client
 * did not ask for (`notifications/resources/updated` on a subscribed handoff) over the session's
 * GET stream. A client that initializes gets a session (`Mcp-Session-Id`), its own server with
 * subscriptions on, and keeps it until it sends DELETE or stays idle for IDLE_MS (a session
 * whose GET stream is open is listening, not idle); requests
 * without a session id go on to the stateless path. A session answers only the caller that
 * opened it (lib/caller.ts's `callerKey`: the same token, grant or desk), so a leaked id is worth
 * nothing to anyone else, and the cap on sessions is per caller, so one caller's initializes end
 * only its own oldest sessions.
 */
type Session = {
  server: McpServer;
  transport: WebStandardStreamableHTTPServerTransport;
  owner: string;
  lastUsed: number;
  /** GET streams open now: while one is, the session is in use. */
  openStreams: number;
  /** The credential the session is watched on (lib/guard/revocation-watch.ts): for a connector, the latest access token it came with. */
  watched: string | null;
  unwatch: () => void;
};

export const IDLE_MS = 30 * 60 * 1000;
/** Sessions one caller may hold; its oldest ends when it opens one more. */
export const MAX_SESSIONS_PER_CALLER = 32;
/** Sessions in all: past this, new ones are refused (429) rather than ending anyone's. */
const MAX_SESSIONS = 4096;
const sessions = new Map<string, Session>();

const SESSION_HEADER = "mcp-session-id";

function jsonRpcError(status: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }, { status, headers: { "cache-control": "no-store" } });
}

/** The proof of the credential a caller came with (a token's, a sign-in's, an access token's), or null for the desk. */
const proofOf = (caller: Caller): string | null => ("proof" in caller.who ? caller.who.proof : null);

/**
 * Watches a connector's session on the access token it came with this time. A connector refreshes
 * its access token every hour and goes on in the same session (its owner is the grant): watched on
 * the token that opened it, the session ended when that one expired, though the connector held a
 * good one. Watched on the latest, it ends when that one is revoked or expires, or the grant is. A
 * named token's proof never changes, and a sign-in's session stays with the sign-in that opened it
 * (signing that one out ends it).
 */
function watchLatest(id: string, session: Session, caller: Caller): void {
  const proof = proofOf(caller);
  if (caller.who.kind !== "connector" || proof === session.watched) return;
  session.unwatch();
  session.watched = proof;
  session.unwatch = endWhenRevoked(caller, () => void closeSession(id));
}

async function closeSession(id: string): Promise<void> {
  const session = sessions.get(id);
  if (!session) return;
  sessions.delete(id);
  session.unwatch();
  await session.server.close();
}

/** When the session was last used: now while its GET stream is open (its client is listening for notifications). */
const lastActive = (session: Session, now: number) => (session.openStreams > 0 ? now : session.lastUsed);

/** Ends sessions idle for too long, and the owner's least recently used ones past its cap. */
async function sweep(owner: string): Promise<void> {
  const now = Date.now();
  for (const [id, session] of sessions) if (now - lastActive(session, now) > IDLE_MS) await closeSession(id);
  const owned = [...sessions.entries()].filter(([, session]) => session.owner === owner).sort((a, b) => lastActive(a[1], now) - lastActive(b[1], now));
  for (const [id] of owned.slice(0, Math.max(0, owned.length - MAX_SESSIONS_PER_CALLER + 1))) await closeSession(id);
}

/**
 * Messages a session's GET stream may hold for a client that does not read them. The SDK queues
 * every notification whether or not anyone reads; past this the stream fails, so the router drops
 * its connection and what was queued on it, and the client may open it again, as /api/events
 * drops a stream that far behind (lib/changes/sse.ts). Ended gracefully, the stream kept both for
 * as long as the client stayed, no longer counted: a client reading nothing piled them up.
 */
export const MAX_QUEUED_MESSAGES = 1000;

/**
 * The session's event stream, bounded (MAX_QUEUED_MESSAGES) and marked so that no compression
 * between here and the client holds events back. The SDK's stream is read as fast as it is
 * written; what the client has not taken yet is counted in this stream's queue, one message a
 * chunk. `onEnd` runs once when the stream ends, however it ends.
 */
function boundedEventStream(response: Response, onEnd: () => void): Response {
  const headers = new Headers(response.headers);
  headers.set("cache-control", "no-cache, no-transform");
  if (!response.body) {
    onEnd();
    return new Response(null, { status: response.status, headers });
  }
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    onEnd();
  };
  const source = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      void (async () => {
        try {
          for (;;) {
            const { done, value } = await source.read();
            if (done) break;
            if ((controller.desiredSize ?? 0) < -MAX_QUEUED_MESSAGES) {
              await source.cancel("the client does not read its session's stream");
              throw new DroppedStream(`baton: dropped an MCP session's stream whose client read none of its last ${MAX_QUEUED_MESSAGES} messages; the session goes on`);
            }
            controller.enqueue(value);
          }
          controller.close();
        } catch (error) {
          // The client went away (closing a cancelled stream throws), the SDK's stream failed, or
          // the client read nothing: this one ends with it, and the router drops the connection.
          controller.error(error);
        } finally {
          end();
        }
      })();
    },
    cancel: (reason) => {
      end();
      return source.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, headers });
}

/** An initialize request; the method is looked at first, so a tool call (nearly every POST) skips the SDK's full schema check. */
const isInitialize = (json: unknown) =>
  typeof json === "object" && json !== null && (json as { method?: unknown }).method === "initialize" && isInitializeRequest(json);

/** Whether a POST's body is (or, in a batch, holds) an initialize request. */
function initializes(message: McpMessage): boolean {
  if (typeof message !== "object") return false;
  return Array.isArray(message.json) ? message.json.some(isInitialize) : isInitialize(message.json);
}

/**
 * Serves a request that belongs to a session (it carries Mcp-Session-Id) or starts one (an
 * initialize POST); anything else returns null for the stateless path.
 */
export async function handleSessionRequest(request: Request, caller: Caller, message: McpMessage): Promise<Response | null> {
  const owner = callerKey(caller);
  const id = request.headers.get(SESSION_HEADER);
  if (id !== null) {
    const session = sessions.get(id);
    // 404 tells a client its session is gone and it should initialize again (the spec's rule);
    // another caller's session looks exactly like one that does not exist.
    if (!session || session.owner !== owner) return jsonRpcError(404, "no such MCP session (it ended or expired); initialize again");
    session.lastUsed = Date.now();
    watchLatest(id, session, caller);
    // A DELETE the transport accepts ends the session through onsessionclosed; one it refuses (a bad protocol version) ends nothing.
    const response = await session.transport.handleRequest(request, parsed(message));
    if (request.method !== "GET" || !response.ok) return response;
    session.openStreams++;
    return boundedEventStream(response, () => {
      session.openStreams--;
      session.lastUsed = Date.now();
    });
  }
  if (!initializes(message)) return null;
  await sweep(owner);
  if (sessions.size >= MAX_SESSIONS) return jsonRpcError(429, "this Baton holds as many MCP sessions as it will; try again later, or send requests without a session");
  const server = createMcpServer({ subscriptions: true });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    enableJsonResponse: true,
    onsessioninitialized: (sessionId) => {
      // Revoking the caller's token, grant or sign-in ends the session and its GET stream at once.
      const unwatch = endWhenRevoked(caller, () => void closeSession(sessionId));
      sessions.set(sessionId, { server, transport, owner, lastUsed: Date.now(), openStreams: 0, watched: proofOf(caller), unwatch });
    },
    onsessionclosed: (sessionId) => void closeSession(sessionId),
  });
  await server.connect(transport);
  return transport.handleRequest(request, parsed(message));
}

/** How many sessions are open (tests and the memory figure in the bench). */
export const openSessionCount = () => sessions.size;
