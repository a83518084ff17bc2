/**
 * Speed part `live` (7): a write by another process (bench/workers/live-writer.ts) → its event
 * on one SSE subscriber of the served dashboard. The database folder's change events wake the
 * change feed (lib/changes/follow-sqlite.ts); its CHECK_INTERVAL_MS check is only the fallback,
 * so it is no reference for the figure: writes still land at random points of it.
 */
import { CHECK_INTERVAL_MS } from "../../lib/changes";
import { createHandoff } from "../../lib/handoffs";
import { msOf, type Figure } from "../report";
import { measureEventLatency, median, openEventStream, percentile, startLiveWriter } from "../support";
import { log } from "./common";

const SSE_WRITES = 200;

export async function liveEvents(baseUrl: string): Promise<Figure[]> {
  log(`\n7. write by another process → SSE event, ${SSE_WRITES} writes at random points of the feed's ${CHECK_INTERVAL_MS} ms fallback check:`);
  const { handoff } = await createHandoff({ title: "Live", content: "start" });
  const writer = startLiveWriter(handoff.id);
  try {
    await writer.write(); // the writer's start-up (tsx) is not part of the latency
    const stream = await openEventStream(`${baseUrl}/api/events?handoff=${handoff.id}`);
    try {
      const samples = await measureEventLatency(writer, stream, SSE_WRITES);
      log(`  p50 ${msOf(median(samples))} · p99 ${msOf(percentile(samples, 0.99))} · max ${msOf(Math.max(...samples))}`);
      return [
        { name: "write by another process → SSE event p50", value: median(samples), unit: "ms" },
        { name: "write by another process → SSE event p99", value: percentile(samples, 0.99), unit: "ms" },
      ];
    } finally {
      stream.close();
    }
  } finally {
    writer.stop();
  }
}
