import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "./support/rows";
import { createHandoff, findHandoffs, getHandoff } from "../lib/handoffs";
import { connectHttpClient, connectStdioClient } from "./support/mcp-clients";
import { serveApi } from "./support/api-server";

const PER_WRITER = 500;

describe("two stdio servers and the HTTP endpoint writing the same two threads at once", () => {
  const writers: { name: string; client: Client }[] = [];
  let closeHttp: () => Promise<void>;

  beforeAll(async () => {
    const http = await serveApi();
    closeHttp = http.close;
    const [first, second, overHttp] = await Promise.all([
      connectStdioClient(),
      connectStdioClient({ args: ["--as", "code"] }),
      connectHttpClient(`${http.origin}/api/mcp`),
    ]);
    writers.push({ name: "stdio-1", client: first.client }, { name: "stdio-2", client: second.client }, { name: "http", client: overHttp });
  });

  afterAll(async () => {
    await Promise.all(writers.map((writer) => writer.client.close()));
    await closeHttp?.();
  });

  it(`stores all ${3 * PER_WRITER} entries exactly once, in increasing seq order, with every call succeeding`, { timeout: 600_000 }, async () => {
    const threads = [
      (await createHandoff({ title: "Concurrency A", content: "a" })).handoff.id,
      (await createHandoff({ title: "Concurrency B", content: "b" })).handoff.id,
    ];
    const failures: string[] = [];
    let writing = true;
    let reads = 0;

    // The dashboard's reads (thread page and history) run throughout, as requests do: each read
    // is its own turn of the event loop. (better-sqlite3 answers synchronously, so a loop of
    // back-to-back awaits would never let this process serve the HTTP writer at all.)
    const reader = (async () => {
      while (writing) {
        const [thread] = await Promise.all([getHandoff({ id: threads[reads % 2] }), findHandoffs({ q: "Concurrency" })]);
        const seqs = thread.entries.map((entry) => entry.seq);
        if (seqs.some((seq, index) => index > 0 && seq <= seqs[index - 1])) failures.push(`read ${reads}: seqs out of order`);
        reads++;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();

    const written = await Promise.all(
      writers.map(async ({ name, client }) => {
        const seqs: number[] = [];
        for (let index = 0; index < PER_WRITER; index++) {
          const result = await client.callTool({
            name: "add_to_handoff",
            arguments: { id: threads[index % 2], type: "progress", content: `${name} #${index}` },
          });
          if (result.isError) failures.push(`${name} #${index}: ${(result.content as { text: string }[])[0].text}`);
          else seqs.push((result.structuredContent as { entry: { seq: number } }).entry.seq);
        }
        return seqs;
      }),
    );
    writing = false;
    await reader;

    expect(failures).toEqual([]);
    expect(reads).toBeGreaterThan(10);
    for (const seqs of written) {
      expect(seqs).toHaveLength(PER_WRITER);
      expect(seqs.every((seq, index) => index === 0 || seq > seqs[index - 1])).toBe(true);
    }

    const stored = await rowsOf<{ handoffId: string; content: string }>(
      `SELECT handoff_id AS "handoffId", content FROM handoff_entries WHERE handoff_id IN (${threads.map(() => "?").join(", ")}) ORDER BY seq`,
      threads,
    );
    const contents = stored.map((entry) => entry.content).filter((content) => content.includes(" #"));
    expect(contents).toHaveLength(3 * PER_WRITER);
    expect(new Set(contents).size).toBe(3 * PER_WRITER);
    for (const { name } of writers) {
      for (const [threadIndex, id] of threads.entries()) {
        const mine = stored.filter((entry) => entry.handoffId === id && entry.content.startsWith(`${name} #`));
        const numbers = mine.map((entry) => Number(entry.content.split("#")[1]));
        // Each writer's entries land in the order it wrote them, half on each thread.
        expect(numbers).toEqual(Array.from({ length: PER_WRITER / 2 }, (_, index) => index * 2 + threadIndex));
      }
    }
    expect(new Set(written.flat()).size).toBe(3 * PER_WRITER);
  });
});
