import "server-only";
import { z } from "zod";
import { Invalid } from "../errors";
import { HANDOFF_ID_PATTERN, HANDOFF_ID_SHAPE } from "../handoffs/schemas";
import { describeFieldErrors, fieldErrorsOf, wholeNumberParam } from "../validation";
import type { FeedEvent } from "./fan-out";
import { MAX_REPLAY, subscribe, type Subscription } from "./feed";
import { DroppedStream } from "./stream-slots";
import { CHANGE_SUBJECTS, RECONNECT_DELAY_MS, type ChangeFilter, type ChangeSubject, type ReadyEvent, type ResetEvent } from "./types";

/**
 * `GET /api/events` as Server-Sent Events, framework-neutral (a Web ReadableStream): the changes
 * after `after` (or Last-Event-ID), then live ones, each with `id: <seq>`.
 */
export const HEARTBEAT_MS = 15_000;
/**
 * A client this many frames behind (past a whole replay) is not reading: its stream is given up
 * with a DroppedStream, which makes the router drop the connection and what is queued on it (it reconnects
 * and resumes after the last id it read). Closed gracefully instead, the stream kept its frames and
 * its connection for as long as the client stayed, with its slot already given back: a client that
 * read nothing held any number of streams of megabytes each past its cap.
 */
const MAX_QUEUED_FRAMES = MAX_REPLAY + 1000;

export const EVENT_STREAM_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  // no-transform: Next's compression would otherwise buffer the stream.
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
} as const;

const seqParam = (name: string) => wholeNumberParam(name, 0, Number.MAX_SAFE_INTEGER);

const eventsQuerySchema = z.object({
  after: seqParam("after"),
  "Last-Event-ID": seqParam("Last-Event-ID"),
  handoff: z
    .string()
    .regex(HANDOFF_ID_PATTERN, { error: `handoff must be a handoff ID: ${HANDOFF_ID_SHAPE}` })
    .optional(),
  agent: wholeNumberParam("agent", 1, Number.MAX_SAFE_INTEGER),
  subject: z
    .string()
    .transform((value) => value.split(","))
    .pipe(z.array(z.enum(CHANGE_SUBJECTS, { error: `subject must be a comma-separated list of ${CHANGE_SUBJECTS.join(", ")}` })))
    .optional(),
});

export type EventsRequest = { after?: number; filter: ChangeFilter };

/** The validated query (`after`, `handoff`, `agent`, `subject`) and Last-Event-ID header, or Invalid naming what is wrong. */
export function eventsRequestOf(url: URL, lastEventId: string | null): EventsRequest {
  const params = url.searchParams;
  const repeated = ["after", "handoff", "agent", "subject"].filter((name) => params.getAll(name).length > 1);
  if (repeated.length) throw new Invalid(`give ${repeated.join(", ")} at most once`);
  const input = {
    after: params.get("after") ?? undefined,
    "Last-Event-ID": lastEventId ?? undefined,
    handoff: params.get("handoff") ?? undefined,
    agent: params.get("agent") ?? undefined,
    subject: params.get("subject") ?? undefined,
  };
  const parsed = eventsQuerySchema.safeParse(input);
  if (!parsed.success) {
    const fieldErrors = fieldErrorsOf(parsed.error);
    throw new Invalid(describeFieldErrors(fieldErrors), fieldErrors);
  }
  const query = parsed.data;
  const filter: ChangeFilter = {};
  if (query.handoff !== undefined) filter.handoffId = query.handoff;
  if (query.agent !== undefined) filter.agentId = query.agent;
  if (query.subject !== undefined) filter.subjects = [...new Set(query.subject)] as ChangeSubject[];
  // A browser reconnecting sends the last id it saw: newer than the `after` in its original URL.
  return { after: query["Last-Event-ID"] ?? query.after, filter };
}

const encoder = new TextEncoder();

function frameOf(event: FeedEvent): string {
  if (event.kind === "change") return `id: ${event.change.seq}\ndata: ${JSON.stringify(event.change)}\n\n`;
  const body: ResetEvent = { seq: event.seq, reason: event.reason };
  return `id: ${event.seq}\nevent: reset\ndata: ${JSON.stringify(body)}\n\n`;
}

/**
 * The event stream: a `retry:` hint, the replayed changes (or one `reset`), a `ready` event
 * carrying the seq it is caught up to, then live changes. A heartbeat comment every
 * `heartbeatMs` keeps proxies from closing an idle stream and, with an `id:` line but no data,
 * moves the browser's resume point past changes that did not match the filter. Ends when
 * `signal` aborts (the client went away) or the reader cancels. Resolves once the replay is
 * read, so a database that does not answer fails the request instead of an open stream. `onEnd`
 * runs once when the stream ends, however it ends (the stream's slot: lib/changes/stream-slots.ts).
 */
export async function changeStream(request: EventsRequest, signal: AbortSignal, heartbeatMs = HEARTBEAT_MS, onEnd: () => void = () => {}): Promise<ReadableStream<Uint8Array>> {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let open = true;
  /** Ends the live part (subscription and heartbeat) once it started. */
  let stopLive = () => {};
  /** Ends the stream: closed after what is queued, or with `failure`, dropping it. */
  const end = (failure?: Error) => {
    if (!open) return;
    open = false;
    stopLive();
    onEnd();
    signal.removeEventListener("abort", endOnAbort);
    try {
      if (failure) controller.error(failure);
      else controller.close();
    } catch {
      // Already closed by the reader's cancel.
    }
  };
  const endOnAbort = () => end();
  const stream = new ReadableStream<Uint8Array>({
    start(streamController) {
      controller = streamController;
    },
    cancel() {
      end();
    },
  });
  const send = (text: string) => {
    if (!open) return;
    if ((controller.desiredSize ?? 0) < -MAX_QUEUED_FRAMES) return end(new DroppedStream(`baton: dropped a live-update stream whose client read none of its last ${MAX_QUEUED_FRAMES} events; it resumes from the last one it read`));
    controller.enqueue(encoder.encode(text));
  };
  if (signal.aborted) {
    end();
    return stream;
  }
  signal.addEventListener("abort", endOnAbort);
  send(`retry: ${RECONNECT_DELAY_MS}\n\n`);
  let subscription: Subscription;
  try {
    subscription = await subscribe({ after: request.after, filter: request.filter }, (event) => send(frameOf(event)));
  } catch (error) {
    end();
    throw error;
  }
  // The client may have gone while the replay was read.
  if (!open) {
    subscription.close();
    return stream;
  }
  const ready: ReadyEvent = { seq: subscription.cursor };
  send(`id: ${ready.seq}\nevent: ready\ndata: ${JSON.stringify(ready)}\n\n`);
  const heartbeat = setInterval(() => send(`: keep-alive\nid: ${subscription.cursor}\n\n`), heartbeatMs);
  stopLive = () => {
    clearInterval(heartbeat);
    subscription.close();
  };
  // The ready event itself may have found the client too far behind.
  if (!open) stopLive();
  return stream;
}
