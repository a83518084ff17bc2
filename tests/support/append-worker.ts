/**
 * A separate OS process that appends entries through the domain layer, for the multi-process
 * write test. argv: <handoff id> <handoff id> <count> <side> [pause ms between appends]. Prints
 * "ok <seqs as JSON>" or the error.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { closeDatabase } from "../../lib/database";
import { addEntry } from "../../lib/handoffs";

const [first, second, count, side, pauseMs = "0"] = process.argv.slice(2);
const seqs: number[] = [];
try {
  for (let index = 0; index < Number(count); index++) {
    if (index > 0 && Number(pauseMs) > 0) await sleep(Number(pauseMs));
    const { entry } = await addEntry({ id: index % 2 ? second : first, type: "progress", content: `${side} ${index}`, asClient: side });
    seqs.push(entry.seq);
  }
  console.log(`ok ${JSON.stringify(seqs)}`);
} catch (error) {
  console.log(`error ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await closeDatabase();
}
