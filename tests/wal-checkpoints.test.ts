import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { databaseFile } from "../lib/config";
import { closeDatabase } from "../lib/database";
import { addEntry, createHandoff } from "../lib/handoffs";
import { rawStdioServer } from "./support/mcp-clients";

/**
 * SQLite's WAL checkpoints run in a worker thread (lib/database/checkpointer.ts), not in the
 * COMMIT of whichever write crosses wal_autocheckpoint. Only a checkpoint writes pages into the
 * database file itself, so the file growing while no write crossed SQLite's line (1,000 WAL
 * pages; an append writes about 13) shows the worker at work.
 */
const sizeOf = (file: string) => fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe("WAL checkpoints off the write path", () => {
  it("a writing process's worker copies its writes into the database file; closing ends it and removes the WAL", async () => {
    await closeDatabase();
    const file = databaseFile();
    const { handoff } = await createHandoff({ title: "Checkpoints", content: "first" });
    for (let index = 0; index < 40; index++) await addEntry({ id: handoff.id, type: "progress", content: `entry ${index} `.repeat(40) });
    const written = sizeOf(file);
    expect(sizeOf(`${file}-wal`)).toBeGreaterThan(0);
    // The worker starts a second after the first commit, then checkpoints what was written.
    await expect.poll(() => sizeOf(file), { timeout: 10_000, interval: 100 }).toBeGreaterThan(written);

    // Later writes wake it again.
    const before = sizeOf(file);
    for (let index = 0; index < 40; index++) await addEntry({ id: handoff.id, type: "progress", content: `later ${index} `.repeat(40) });
    await expect.poll(() => sizeOf(file), { timeout: 10_000, interval: 100 }).toBeGreaterThan(before);

    await closeDatabase();
    // The last connection closed (the worker's first, then the writer's): SQLite checkpointed and removed the WAL.
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
  });

  it("keeps the WAL file short through a burst of writes that never pauses", async () => {
    const { handoff } = await createHandoff({ title: "Burst", content: "first" });
    await addEntry({ id: handoff.id, type: "progress", content: "wake the worker" });
    await sleep(1_500);
    const file = databaseFile();
    let largest = 0;
    // About 13 WAL pages an append: 3,000 appends are some 39,000 pages, 150 MB unchecked.
    for (let index = 0; index < 3_000; index++) {
      await addEntry({ id: handoff.id, type: "progress", content: `burst ${index}` });
      if (index % 100 === 0) largest = Math.max(largest, sizeOf(`${file}-wal`));
    }
    // The writer's own line while the worker runs is 4,000 pages (about 16 MB): the WAL starts over
    // near there, later when the worker's checkpoint held the lock just then (33 MB seen with the
    // rest of the suite running). Left to the worker's checkpoints alone, which the writes keep
    // overtaking, it never starts over: 178 MB.
    expect(largest).toBeLessThan(64 * 1024 * 1024);
    await closeDatabase();
  });

  it("the stdio server checkpoints while it runs, and exits as soon as stdin ends with its worker running", async () => {
    await closeDatabase();
    const file = databaseFile();
    const server = rawStdioServer(["bin/baton.mjs", "mcp"]);
    let id = 0;
    const call = async (method: string, params: Record<string, unknown>) => {
      const asked = ++id;
      server.write(JSON.stringify({ jsonrpc: "2.0", id: asked, method, params }));
      await expect.poll(() => server.messages().some((message) => message.id === asked), { timeout: 60_000, interval: 20 }).toBe(true);
      return server.messages().find((message) => message.id === asked) as { result: { structuredContent: { handoff: { id: string } } } };
    };
    await call("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } });
    server.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    const created = await call("tools/call", { name: "create_handoff", arguments: { title: "Stdio checkpoints", content: "first" } });
    const handoffId = created.result.structuredContent.handoff.id;
    const written = sizeOf(file);
    for (let index = 0; index < 20; index++) {
      await call("tools/call", { name: "add_to_handoff", arguments: { id: handoffId, type: "progress", content: `stdio ${index} `.repeat(40) } });
    }
    await expect.poll(() => sizeOf(file), { timeout: 10_000, interval: 100 }).toBeGreaterThan(written);
    const endedAt = performance.now();
    expect(await server.end()).toBe(0);
    // The worker (sleeping on its signal) does not hold the process.
    expect(performance.now() - endedAt).toBeLessThan(5_000);
  });
});
