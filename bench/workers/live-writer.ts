/**
 * bench/live.ts's writer: a separate OS process appending entries through the domain. Each line
 * on stdin appends one entry to the handoff in argv[2]; it answers with one JSON line: the
 * entry's seq and the wall-clock time (ms, sub-ms precision) right after the commit.
 */
import readline from "node:readline";
import { addEntry } from "../../lib/handoffs";

const id = process.argv[2];
const now = () => performance.timeOrigin + performance.now();
for await (const line of readline.createInterface({ input: process.stdin })) {
  if (line === "") continue;
  const { entry } = await addEntry({ id, type: "progress", content: `bench ${line}`, asClient: "code" });
  process.stdout.write(`${JSON.stringify({ entrySeq: entry.seq, committedAt: now() })}\n`);
}
