/**
 * lib/changes: the change feed. Triggers (prisma/migrations/*_change_feed on SQLite,
 * prisma/postgres/migrations/*_change_feed_triggers on PostgreSQL) append a row to `changes` for
 * every write to handoffs, entries, agents and shift handoffs, whichever process or instance made
 * it; this module owns reading that table (and pruning it, the only write it makes). One feed per
 * server process notices new rows, only while someone is subscribed, and fans them out: on SQLite
 * with a check every 100 ms that reads no table, on PostgreSQL on each NOTIFY the triggers send
 * at commit. `changeStream` serves them as Server-Sent Events (`GET /api/events`). Client-safe
 * types live in ./types.
 */
export { changeFeedStats, changesAfter, MAX_REPLAY, subscribe, type Subscription } from "./feed";
export { latestChangeSeq, type FeedEvent, type FeedStats } from "./fan-out";
export { CHECK_INTERVAL_MS } from "./follow-sqlite";
export { KEEP_MS, KEEP_ROWS, pruneChanges } from "./prune";
export { entryChangesOfThreadAfter } from "./rows";
export { changeStream, EVENT_STREAM_HEADERS, eventsRequestOf, HEARTBEAT_MS, type EventsRequest } from "./sse";
export { DroppedStream, MAX_STREAMS, MAX_STREAMS_PER_CALLER, STREAM_RETRY_AFTER_S, takeStreamSlot } from "./stream-slots";
export * from "./types";
