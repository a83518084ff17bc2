/**
 * Speed part `memory` (4a): resident memory of an idle `baton mcp` after initialize and one
 * get_handoff, against the floor MCP server doing the same. (4b, the dashboard's, is in http.ts.)
 */
import { setTimeout as sleep } from "node:timers/promises";
import { connectStdioClient } from "../../tests/support/mcp-clients";
import { f1, type Figure } from "../report";
import { residentMb } from "../support";
import { log } from "./common";
import { call, connectFloorMcp } from "./mcp";

export async function idleMemory(floorEntry: string, readThread: string): Promise<Figure[]> {
  const baton = await connectStdioClient({ entry: "bin" });
  const floor = await connectFloorMcp(floorEntry);
  try {
    await call(baton.client, "get_handoff", { id: readThread });
    await call(floor.client, "get_handoff", { id: readThread });
    await sleep(1_500);
    const batonMb = residentMb(baton.pid);
    const floorMb = residentMb(floor.pid);
    log(`\n4a. idle stdio server after initialize + one get_handoff: baton mcp ${f1(batonMb)} MB · floor ${f1(floorMb)} MB`);
    return [{ name: "idle baton mcp resident memory", value: batonMb, unit: "MB", reference: { value: floorMb, label: "floor" } }];
  } finally {
    await Promise.all([baton.client.close(), floor.client.close()]);
  }
}
