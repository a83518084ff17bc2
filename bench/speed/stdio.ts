/**
 * Speed part `stdio` (1): add_to_handoff and get_handoff (300 entries) over stdio, one client,
 * `baton mcp` against the floor (bench/workers/floor-mcp.ts: the SDK's McpServer + raw
 * better-sqlite3, the same transactions), and the same work in process without MCP.
 */
import { databaseFile } from "../../lib/config";
import { addEntry, getHandoff } from "../../lib/handoffs";
import { connectStdioClient } from "../../tests/support/mcp-clients";
import { f2, msOf, type Figure } from "../report";
import { median, percentile, timeIt } from "../support";
import { openFloorStore } from "../workers/floor-store";
import { log, STDIO_CALLS, THREAD_SIZE, threadOf } from "./common";
import { call, connectFloorMcp, interleaved } from "./mcp";

/** `batonRead`: a thread of THREAD_SIZE entries the driver wrote first. */
export async function stdioLatency(floorEntry: string, batonRead: string): Promise<Figure[]> {
  log(`\n1. stdio, one client, ${STDIO_CALLS} calls each (interleaved rounds of 30):`);
  const [floorRead, batonWrite, floorWrite] = [await threadOf(THREAD_SIZE, "Floor read"), await threadOf(1, "Baton write"), await threadOf(1, "Floor write")];
  const baton = await connectStdioClient({ entry: "bin" });
  const floor = await connectFloorMcp(floorEntry);
  try {
    const first = await call(baton.client, "get_handoff", { id: batonRead });
    const answer = first.structuredContent as { entries: unknown[]; truncated: boolean };
    if (answer.entries.length !== THREAD_SIZE || answer.truncated) throw new Error(`get_handoff carried ${answer.entries.length} entries: not the whole thread, so not the floor's work`);
    const [batonAdd, floorAdd] = await interleaved([baton.client, floor.client], "add_to_handoff", (index) => ({
      id: index === 0 ? batonWrite : floorWrite,
      type: "progress",
      content: "bench entry",
    }), STDIO_CALLS);
    const [batonGet, floorGet] = await interleaved([baton.client, floor.client], "get_handoff", (index) => ({ id: index === 0 ? batonRead : floorRead }), STDIO_CALLS);
    for (const [label, b, fl] of [["add_to_handoff", batonAdd, floorAdd], ["get_handoff (300)", batonGet, floorGet]] as const) {
      log(`  ${label.padEnd(18)} Baton p50 ${msOf(median(b))} p99 ${msOf(percentile(b, 0.99))} · floor p50 ${msOf(median(fl))} p99 ${msOf(percentile(fl, 0.99))} · ×${f2(median(b) / median(fl))}`);
    }
    await inProcess(batonRead, floorRead, batonWrite, floorWrite);
    return [
      { name: "stdio add_to_handoff p50", value: median(batonAdd), unit: "ms", reference: { value: median(floorAdd), label: "floor" } },
      { name: "stdio get_handoff 300 entries p50", value: median(batonGet), unit: "ms", reference: { value: median(floorGet), label: "floor" } },
    ];
  } finally {
    await Promise.all([baton.client.close(), floor.client.close()]);
  }
}

/** The same work without MCP or stdio: the domain functions against the floor's store, in this process. */
async function inProcess(batonRead: string, floorRead: string, batonWrite: string, floorWrite: string) {
  const store = openFloorStore(databaseFile());
  const add = {
    baton: await timeIt(STDIO_CALLS, () => addEntry({ id: batonWrite, type: "progress", content: "bench entry" }), 20),
    floor: await timeIt(STDIO_CALLS, async () => store.append(floorWrite, "chat", "progress", "bench entry"), 20),
  };
  const get = {
    baton: await timeIt(STDIO_CALLS, () => getHandoff({ id: batonRead }), 20),
    floor: await timeIt(STDIO_CALLS, async () => store.read(floorRead), 20),
  };
  log(`  in process (no MCP): addEntry ${msOf(median(add.baton))} vs floor ${msOf(median(add.floor))} · getHandoff ${msOf(median(get.baton))} vs floor ${msOf(median(get.floor))}`);
  store.close();
}
