import "server-only";

/**
 * How many live-update streams (`GET /api/events`) may be open: per caller (lib/caller.ts's
 * `callerKey`: one token, grant, sign-in or the local desk) as many as MCP sessions a caller may
 * hold, and in all a number a 2-core server holds comfortably (each stream keeps a socket, a
 * subscription and a heartbeat timer). Past either, a new stream is refused with 429 and a
 * Retry-After; open streams are never ended to make room.
 */
export const MAX_STREAMS_PER_CALLER = 32;
export const MAX_STREAMS = 1024;
/** What a refused client is told to wait, in seconds: about how long a browser tab takes to be closed. */
export const STREAM_RETRY_AFTER_S = 30;

/**
 * A stream given up on purpose: its client read none of what waited for it for too long
 * (/api/events, an MCP session's GET). The stream fails with it, and the router (lib/server/app.ts)
 * drops the connection with what was queued and logs its message as one line: an expected event,
 * which a stack trace would make look like a fault.
 */
export class DroppedStream extends Error {}

const openByCaller = new Map<string, number>();
let openInAll = 0;

/** Takes a slot for `owner`'s new stream: a release function (call it once, when the stream ends), or null when full. */
export function takeStreamSlot(owner: string): (() => void) | null {
  const owned = openByCaller.get(owner) ?? 0;
  if (owned >= MAX_STREAMS_PER_CALLER || openInAll >= MAX_STREAMS) return null;
  openByCaller.set(owner, owned + 1);
  openInAll += 1;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    openInAll -= 1;
    const left = (openByCaller.get(owner) ?? 1) - 1;
    if (left === 0) openByCaller.delete(owner);
    else openByCaller.set(owner, left);
  };
}
