import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { databaseFile } from "../lib/config";
import { connectStdioClient } from "./support/mcp-clients";

/**
 * The idle checkpoint (lib/database/sqlite.ts), in the prebuilt `baton mcp` as an MCP client
 * starts it: after a burst of appends and a pause the server has checkpointed its write-ahead log
 * and restarted it with a one-page write, so no caller's commit waits for the checkpoint's fsyncs
 * or the new log's header. A write now and then is left in the log (no three fsyncs per write).
 */
const onSqlite = process.env.BATON_TEST_ENGINE !== "postgres";
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Frames in the log, as another connection's checkpoint reports them (it backfills them too). */
function framesInLog(): number {
  const connection = new Database(databaseFile());
  try {
    const [result] = connection.pragma("wal_checkpoint(PASSIVE)") as { busy: number; log: number }[];
    expect(result.busy).toBe(0);
    return result.log;
  } finally {
    connection.close();
  }
}

describe.skipIf(!onSqlite)("the write-ahead log at idle moments", () => {
  it("is checkpointed and restarted by the server after a burst, and left alone after a single write", { timeout: 60_000 }, async () => {
    const { client } = await connectStdioClient({ entry: "launch" });
    try {
      const created = await client.callTool({ name: "create_handoff", arguments: { title: "Idle checkpoint", content: "start" } });
      const id = (created.structuredContent as { handoff: { id: string } }).handoff.id;
      await client.callTool({ name: "add_to_handoff", arguments: { id, type: "progress", content: "one write" } });
      await sleep(200);
      expect(framesInLog()).toBeGreaterThan(1);

      // A hundred appends sent at once (no idle moment among them) change hundreds of rows; after
      // the pause the log holds the restart's one page. A busy machine can still pause the server long
      // enough between two of them to checkpoint there, leaving too few rows after it for another:
      // another burst then ends in one.
      let frames = 0;
      for (let burst = 0; burst < 3 && frames !== 1; burst++) {
        const added = await Promise.all(
          Array.from({ length: 100 }, (_, index) => client.callTool({ name: "add_to_handoff", arguments: { id, type: "progress", content: `burst ${burst} entry ${index}` } })),
        );
        expect(added.filter((result) => result.isError)).toEqual([]);
        await sleep(200);
        frames = framesInLog();
      }
      expect(frames).toBe(1);

      const read = await client.callTool({ name: "get_handoff", arguments: { id, limit: 1 } });
      expect((read.structuredContent as { entry_count: number }).entry_count % 100).toBe(2);
    } finally {
      await client.close();
    }
  });
});
