/**
 * Run by tests/heap-bounds.test.ts in a Node of its own, as scripts/serve.ts runs the server:
 * with `--bound`, the heap bounds first; then a long synchronous stretch (as start-up loading
 * Next is), the young generation shrunk as once serving, and a burst of requests (many turns of
 * the event loop, each making short-lived objects). Prints the young generation's size at the end,
 * whether the shrink collected, and whether a `gc` is left for later code to call.
 */
import vm from "node:vm";
import { boundHeap, shrinkYoungGeneration, youngGenerationBytes } from "../../lib/server/heap-bounds";

const bound = process.argv.includes("--bound");
if (bound) boundHeap();
let kept: { turn: number; text: string }[] = [];
const allocate = (turn: number, count: number, keep: number) => {
  for (let index = 0; index < count; index++) {
    kept.push({ turn, text: `request ${turn} ${index}` });
    if (kept.length > keep) kept = [];
  }
};
allocate(-1, 3_000_000, 200_000);
const beforeShrink = youngGenerationBytes();
if (bound) shrinkYoungGeneration();
const shrunk = youngGenerationBytes() < beforeShrink;
for (let turn = 0; turn < 300; turn++) {
  await new Promise((resolve) => setImmediate(resolve));
  allocate(turn, 100_000, 2_000);
}
// Whether code run later, here or in a context of its own, could call the collector.
const gcReachable = typeof globalThis.gc === "function" || vm.runInNewContext("typeof gc") === "function";
console.log(JSON.stringify({ youngGenerationBytes: youngGenerationBytes(), shrunk, gcReachable }));
