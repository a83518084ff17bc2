/**
 * Run by tests/heap-bounds.test.ts in a Node of its own: allocates as a burst of requests does
 * (many turns of the event loop, each making short-lived objects, a few of them kept a while),
 * with the server's heap bounds when given `--bound`, then prints the young generation's size.
 */
import { boundHeap, youngGenerationBytes } from "../../lib/server/heap-bounds";

if (process.argv.includes("--bound")) boundHeap();
let kept: { turn: number; text: string }[] = [];
for (let turn = 0; turn < 300; turn++) {
  await new Promise((resolve) => setImmediate(resolve));
  for (let index = 0; index < 100_000; index++) {
    kept.push({ turn, text: `request ${turn} ${index}` });
    if (kept.length > 2_000) kept = [];
  }
}
console.log(JSON.stringify({ youngGenerationBytes: youngGenerationBytes() }));
