import "server-only";
import { PerformanceObserver } from "node:perf_hooks";
import v8 from "node:v8";
import vm from "node:vm";

/**
 * The young generation's bound: what Node 22's V8 stops at on its own (two 16 MB semi-spaces,
 * 32 MB resident). Node 24's grows it to 128 MB under a burst of requests and keeps it.
 */
export const YOUNG_GENERATION_BYTES = 32 * 1024 * 1024;

/** Flags a user may have given Node for the young generation; theirs win. */
const YOUNG_GENERATION_FLAGS = /--(?:max-semi-space-size|max-heap-size|semi-space-growth-factor)\b/;

const userSizedYoungGeneration = () => YOUNG_GENERATION_FLAGS.test(`${process.execArgv.join(" ")} ${process.env.NODE_OPTIONS ?? ""}`);

/** The young generation's capacity now: new_space's size as V8 reports it. */
export function youngGenerationBytes(): number {
  return v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0;
}

/**
 * Keeps the long-running server's heap near what it holds live (issue 16 bounds the desk at 300
 * MB resident after the bench's HTTP run); call it first, then `shrinkYoungGeneration` once
 * serving:
 * - The old generation grows by a quarter between full collections, not up to four times what
 *   survived the last one: after a burst of appends the desk held 440 MB resident around a live
 *   heap of 43 MB. V8 reads `--heap-growing-percent` at every collection.
 * - The young generation grows only within YOUNG_GENERATION_BYTES. On Node 24 the desk held
 *   314-329 MB after the HTTP run, 96 MB of it a young generation grown to 128 MB.
 *   `--max-semi-space-size` is read only when the heap is made, so the server sets
 *   `--semi-space-growth-factor`, which V8 reads at each growth: to 1 (no growth) from a quarter
 *   of the bound on, checked after every collection. A quarter, because Node reports collections
 *   to JavaScript two event-loop turns late, and under a burst the young generation grew twice
 *   in between (10 → 21 → 42 MB, stopped from half the bound): from a quarter, two growths the
 *   check misses still land within the bound. A long synchronous stretch (start-up loads Next in
 *   one) can grow it further; shrinkYoungGeneration takes that back.
 */
export function boundHeap(): void {
  v8.setFlagsFromString("--heap-growing-percent=25");
  if (userSizedYoungGeneration()) return;
  let growing = true;
  new PerformanceObserver(() => {
    const grow = youngGenerationBytes() * 4 <= YOUNG_GENERATION_BYTES;
    if (grow === growing) return;
    growing = grow;
    v8.setFlagsFromString(`--semi-space-growth-factor=${grow ? 2 : 1}`);
  }).observe({ entryTypes: ["gc"] });
}

/**
 * Once serving: a young generation start-up grew past the bound (64 MB, measured after Next
 * loaded) is taken back to its smallest by one last-resort collection, V8's only one that shrinks
 * it (a regular full one does not), and grows again within the bound as requests come. The
 * collection is reached through `--expose-gc` in a context of its own, and the flag is turned off
 * again at once, so no `gc` appears in this context or in any made later. It takes about 44 ms,
 * once, as the server starts (64 MB to 1 MB, on the bench machine).
 */
export function shrinkYoungGeneration(): void {
  if (userSizedYoungGeneration() || youngGenerationBytes() <= YOUNG_GENERATION_BYTES) return;
  v8.setFlagsFromString("--expose-gc");
  const collect = vm.runInNewContext("gc") as (options: { type: "major"; execution: "sync"; flavor: "last-resort" }) => void;
  v8.setFlagsFromString("--no-expose-gc");
  collect({ type: "major", execution: "sync", flavor: "last-resort" });
}
