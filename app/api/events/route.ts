import { changeStream, EVENT_STREAM_HEADERS, eventsRequestOf } from "@/lib/changes";
import { errorResponse } from "@/lib/http";

export const dynamic = "force-dynamic";

/**
 * Server-Sent Events: `?after=<seq>&handoff=<id>&agent=<id>&subject=entry,handoff`. Replays the
 * changes after `after` (or the Last-Event-ID a reconnecting browser sends), then streams live
 * ones until the client goes away. A plain ReadableStream: Next route handlers return Web
 * Responses, and SSE framing is a few lines.
 */
export function GET(request: Request) {
  try {
    const query = eventsRequestOf(new URL(request.url), request.headers.get("last-event-id"));
    return new Response(changeStream(query, request.signal), { headers: EVENT_STREAM_HEADERS });
  } catch (error) {
    return errorResponse(error);
  }
}
