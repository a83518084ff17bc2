import "server-only";
import fs from "node:fs";
import type http from "node:http";
import type { Socket } from "node:net";
import { isLoopbackAddress, type GuardPolicy } from "../guard";

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
 * Applies the bounds to `server` (made with BOUNDED_SERVER_OPTIONS): every connection gets HEADERS_DEADLINE_MS for its headers (the
 * first request by a timer of its own, later ones by Node's headersTimeout; idle keep-alive by
 * keepAliveTimeout), and a connection from beyond loopback past its peer's cap or the total cap is
 * closed at once. Loopback peers and trusted proxies (BATON_TRUSTED_PROXIES, whose clients are
 * many) are not counted.
 */
export function boundConnections(server: http.Server, policy: Pick<GuardPolicy, "trustProxy">): void {
  const cap = remoteConnectionCap();
  const perPeer = new Map<string, number>();
  let remote = 0;
  const waiting = new WeakMap<Socket, NodeJS.Timeout>();

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
    const timer = setTimeout(() => socket.destroy(), HEADERS_DEADLINE_MS);
    timer.unref();
    waiting.set(socket, timer);
    socket.once("close", () => clearTimeout(timer));
  });
  server.on("request", (request: http.IncomingMessage) => {
    const timer = waiting.get(request.socket);
    if (timer === undefined) return;
    clearTimeout(timer);
    waiting.delete(request.socket);
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
