import "server-only";
import fs from "node:fs";
import type http from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { Invalid } from "../errors";
import { bodyClassOf, isLoopbackAddress, KiB, type GuardPolicy } from "../guard";
import { RAW_ANSWER_SECURITY_HEADERS } from "./security-headers";

/**
 * Bounds on the connections themselves, before any request: a LAN peer once held 20,200 idle TCP
 * connections that never sent a byte, the server ran out of descriptors and /api/health timed
 * out from the LAN and from the machine itself. Node closes a connection whose headers stall
 * (headersTimeout, checked every connectionsCheckingInterval) but not one that never sends a
 * byte, and it has no per-peer limit; this module adds both. Hand-written: it is a few counters
 * on the server's own `connection` event, and no maintained library does this for node:http.
 */

/** A connection must complete its request headers within this long, the first request and every later one. */
export const HEADERS_DEADLINE_MS = 10_000;
/** Open connections one address beyond loopback may hold (a browser keeps about six, plus its live-update streams). */
export const MAX_CONNECTIONS_PER_PEER = 128;
/** Descriptors kept for loopback (the operator, a proxy or tunnel on this machine) whatever the LAN does. */
const LOOPBACK_RESERVE = 256;
/** Connections from beyond loopback in all, when the process's descriptor limit allows that many. */
const MAX_REMOTE_CONNECTIONS = 4096;

/** The soft limit on open files (Linux's /proc/self/limits), or null elsewhere. */
function openFilesLimit(): number | null {
  try {
    const line = fs
      .readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((row) => row.startsWith("Max open files"));
    const soft = line ? Number(line.split(/\s{2,}/)[1]) : NaN;
    return Number.isFinite(soft) ? soft : null;
  } catch {
    return null;
  }
}

/** How many connections from beyond loopback the process may hold in all, leaving the loopback reserve. */
export function remoteConnectionCap(limit = openFilesLimit()): number {
  return limit === null ? MAX_REMOTE_CONNECTIONS : Math.max(64, Math.min(MAX_REMOTE_CONNECTIONS, limit - LOOPBACK_RESERVE));
}

const plain = (address: string) => address.toLowerCase().replace(/^::ffff:(?=\d+\.)/, "");

/** For http.createServer: stalled headers are found within a second of their deadline (Node's default check runs every 30 s). */
export const BOUNDED_SERVER_OPTIONS: http.ServerOptions = { headersTimeout: HEADERS_DEADLINE_MS, connectionsCheckingInterval: 1_000 };

/**
 * A whole answer written straight to a socket Node's parser no longer serves (or never will):
 * Baton's JSON error shape and security headers, and Connection: close.
 */
export function rawAnswer(socket: Duplex, status: number, statusText: string, body: unknown): void {
  const text = JSON.stringify(body);
  const headers = { ...RAW_ANSWER_SECURITY_HEADERS, "content-type": "application/json", "content-length": String(Buffer.byteLength(text)), connection: "close" };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("");
  socket.end(`HTTP/1.1 ${status} ${statusText}\r\n${head}\r\n${text}`);
}

/**
 * Applies the bounds to `server` (made with BOUNDED_SERVER_OPTIONS): a connection must complete
 * each request's headers within HEADERS_DEADLINE_MS of being ready for it, the first from its
 * opening, a later one from the end of the answer before it (Node's headersTimeout counts from
 * the headers' first byte, after up to keepAliveTimeout of waiting, so a kept-alive client could
 * idle 5 s, then trickle for 10 more); past it the connection is answered 408 and closed, or
 * closed silently when nothing of a request came. A connection from beyond loopback past its
 * peer's cap or the total cap is closed at once. Loopback peers and trusted proxies
 * (BATON_TRUSTED_PROXIES, whose clients are many) are not counted.
 */
export function boundConnections(server: http.Server, policy: Pick<GuardPolicy, "trustProxy">): void {
  const cap = remoteConnectionCap();
  const perPeer = new Map<string, number>();
  let remote = 0;
  /** The headers' deadline of a connection waiting for a request. */
  const waiting = new WeakMap<Socket, NodeJS.Timeout>();
  /** Requests of a connection not answered yet (a client may send the next before the answer). */
  const unanswered = new WeakMap<Socket, number>();

  const awaitHeaders = (socket: Socket) => {
    const readBefore = socket.bytesRead;
    const expire = () => {
      if (socket.destroyed) return;
      if (socket.bytesRead === readBefore) return void socket.destroy();
      const message = `the request's headers did not arrive within ${HEADERS_DEADLINE_MS / 1000} s; send them at once`;
      rawAnswer(socket, 408, "Request Timeout", { error: { code: "REQUEST_TIMEOUT", message } });
      socket.destroySoon();
    };
    waiting.set(socket, setTimeout(expire, HEADERS_DEADLINE_MS).unref());
  };

  server.on("connection", (socket: Socket) => {
    const address = plain(socket.remoteAddress ?? "");
    const counted = !isLoopbackAddress(address) && !policy.trustProxy(address, 0);
    if (counted) {
      const held = perPeer.get(address) ?? 0;
      if (held >= MAX_CONNECTIONS_PER_PEER || remote >= cap) {
        socket.destroy();
        return;
      }
      perPeer.set(address, held + 1);
      remote += 1;
      socket.once("close", () => {
        remote -= 1;
        const left = (perPeer.get(address) ?? 1) - 1;
        if (left === 0) perPeer.delete(address);
        else perPeer.set(address, left);
      });
    }
    awaitHeaders(socket);
    // One listener for the connection's life: it clears whichever deadline is current.
    socket.once("close", () => clearTimeout(waiting.get(socket)));
  });
  server.on("request", (request: http.IncomingMessage, response: http.ServerResponse) => {
    const socket = request.socket;
    clearTimeout(waiting.get(socket));
    waiting.delete(socket);
    unanswered.set(socket, (unanswered.get(socket) ?? 0) + 1);
    response.once("finish", () => {
      const left = (unanswered.get(socket) ?? 1) - 1;
      unanswered.set(socket, left);
      if (left === 0 && !socket.destroyed) awaitHeaders(socket);
    });
  });
}

/** How much of a body left unread after its answer is read and dropped, and for how long, before the connection closes. */
export const UNREAD_BODY_MAX_BYTES = 64 * 1024 * 1024;
export const UNREAD_BODY_MAX_MS = 500;

/**
 * Bounds what Node reads of a body nobody read once its answer is sent (a refusal). Node drops
 * such a body to its end (`_dump`) so the connection can serve its next request, bounded only by
 * its 300 s request timeout: a peer declaring 100 MB and sending 64 KiB every 100 ms kept a
 * refused GET's connection reading, for minutes at that pace. Dropping, not closing at once, lets
 * a client still sending read its answer instead of a reset. The router's adapter does the same
 * for the requests it hands on with a body (@hono/node-server's drainIncoming, the same bounds);
 * this covers the ones it does not: GET and HEAD, and request lines refused before it. On a body
 * it also drains, the first bound reached closes.
 */
export function boundUnreadBody(incoming: http.IncomingMessage, outgoing: http.ServerResponse): void {
  outgoing.once("finish", () => {
    // complete: the parser has the whole body (or there was none); Node drops what it holds.
    if (incoming.complete || incoming.destroyed) return;
    let dropped = 0;
    const stop = () => {
      clearTimeout(timer);
      incoming.off("data", count);
    };
    const close = () => {
      stop();
      incoming.socket.destroySoon();
    };
    const count = (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > UNREAD_BODY_MAX_BYTES) close();
    };
    const timer = setTimeout(close, UNREAD_BODY_MAX_MS);
    timer.unref();
    incoming.on("data", count);
    incoming.once("end", stop);
    incoming.once("error", stop);
    incoming.resume();
  });
}

/** Every body may take this long from its headers, whatever its size: a small one must be whole by then. */
export const BODY_HEAD_START_MS = 10_000;
/**
 * After the head start, a body of a large class (an import, an MCP message, a shift document) must
 * have come at this average rate since its headers: 128 kbit/s, a poor mobile uplink. The largest
 * body, an import's 4 MiB, then has 266 s, under Node's own 300 s request timeout.
 */
export const MIN_BODY_BYTES_PER_SECOND = 16 * KiB;
const BODY_CHECK_MS = 1_000;

/**
 * Bounds how long a request's body may take to arrive, by its route's body class (lib/guard's
 * BODY_LIMITS): a small one (sign-in, OAuth's endpoints, every ordinary write) whole within
 * BODY_HEAD_START_MS of its headers; a large one must keep MIN_BODY_BYTES_PER_SECOND after that.
 * Node bounds a request only by its requestTimeout, one value for every route (300 s), so a peer
 * trickling a byte a second held a connection and its handler for five minutes; this checks each
 * second, counting what the socket read. Time Baton itself spends not reading (its own handler
 * busy while the body waits in Node's buffer) is not held against the client. A body too slow is
 * answered 408 and its connection closed, with a log line; a body that fails while its answer is
 * already being written (none of Baton's routes answers before reading) only closes, logged too.
 * A body its client stops sending by closing the connection fails the handler's read as the
 * client's doing (Invalid), logged nowhere: nothing is done and nothing went wrong in Baton.
 * Returns what starts the body's clock: the server starts it at once, or, for a client that
 * waits for 100 Continue, when that is sent (the guard's decision before it, a busy database's
 * wait included, is Baton's time, not the client's).
 * Hand-written: Node's options apply per server, not per request, and no maintained library
 * bounds a node:http request body's pace.
 */
export function boundBodyTime(incoming: http.IncomingMessage, outgoing: http.ServerResponse): () => void {
  const declared = Number(incoming.headers["content-length"] ?? 0);
  if (!(declared > 0) || incoming.complete) return () => {};
  const socket = incoming.socket;
  let startedAt = 0;
  let readAtStart = 0;
  let notReadingMs = 0;
  // A client that closes its connection before its body is whole (gone, not slow) left Node's own
  // 'aborted' (ECONNRESET) under the handler's read, which the API answered as Baton's failure,
  // logged with its stack. The request fails first, with why: the client's doing, which the
  // handler answers (to nobody) without a log line. Prepended: Node's own listeners on the socket
  // end the request at once; removed when the request ends, as a kept-alive socket serves many.
  const left = () => {
    unhook();
    if (!incoming.complete && !incoming.destroyed) incoming.destroy(new Invalid(`the client closed its connection before its body was whole (${declared} bytes declared); nothing was done`));
  };
  const unhook = () => socket.off("end", left).off("close", left);
  socket.prependOnceListener("end", left).prependOnceListener("close", left);
  incoming.once("close", unhook);
  // No 'close' listener to stop the checks: each check ends them once the body is whole, the answer
  // sent or the socket gone. A server action's answer already carries ten from Next, Hono and
  // Baton, and an eleventh made Node warn of a leak (MaxListenersExceededWarning) on every post.
  const check = () => {
    if (incoming.complete || outgoing.writableFinished || socket.destroyed) return;
    // The body waits in Node's buffer, unread by Baton: the socket is paused, the client is not slow.
    if (incoming.readableLength >= incoming.readableHighWaterMark) notReadingMs += BODY_CHECK_MS;
    const clientMs = Date.now() - startedAt - notReadingMs;
    // Looked up here, not for every request: most bodies are whole long before the first check.
    const path = (incoming.url ?? "/").split("?")[0];
    const small = bodyClassOf(path) === "default";
    const received = socket.bytesRead - readAtStart;
    const due = small ? Infinity : (MIN_BODY_BYTES_PER_SECOND * (clientMs - BODY_HEAD_START_MS)) / 1000;
    if (clientMs < BODY_HEAD_START_MS || received >= due) {
      setTimeout(check, BODY_CHECK_MS).unref();
      return;
    }
    const pace = small ? `whole within ${BODY_HEAD_START_MS / 1000} s` : `at least ${MIN_BODY_BYTES_PER_SECOND / KiB} KiB/s after its first ${BODY_HEAD_START_MS / 1000} s`;
    const reason = `the request body came too slowly: ${received} of ${declared} bytes in ${Math.round((Date.now() - startedAt) / 1000)} s; a body to ${path} must arrive ${pace}`;
    console.error(`baton: closed ${incoming.method} ${path} from ${socket.remoteAddress}: ${reason}`);
    // Destroying the request fails the handler's read of its body with this reason, a client's
    // fault the handler answers without logging it as Baton's (a socket closed under the read
    // leaves it waiting for good); once the 408 is written, so that it reaches the client. Node
    // emits no 'error' on a request nothing listens to.
    const tooSlow = new Invalid(`${reason}; nothing was done`);
    if (outgoing.headersSent) {
      incoming.destroy(tooSlow);
      return;
    }
    const body = JSON.stringify({ error: { code: "REQUEST_TIMEOUT", message: tooSlow.message } });
    outgoing.writeHead(408, { ...RAW_ANSWER_SECURITY_HEADERS, "content-type": "application/json", "cache-control": "no-store", "content-length": Buffer.byteLength(body), connection: "close" });
    outgoing.end(body, () => incoming.destroy(tooSlow));
  };
  return () => {
    if (startedAt !== 0) return;
    startedAt = Date.now();
    readAtStart = socket.bytesRead;
    setTimeout(check, BODY_CHECK_MS).unref();
  };
}
