/**
 * Speed part `repo` (8, issue 19): stdio get_handoff (300 entries) with the server's working
 * folder inside the git repository the thread was recorded in, against the same server outside any.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { connectStdioClient } from "../../tests/support/mcp-clients";
import { f2, msOf, type Figure } from "../report";
import { median, percentile } from "../support";
import { benchRepository, log, STDIO_CALLS, THREAD_SIZE, threadOf } from "./common";
import { call, interleaved } from "./mcp";

export async function readInRepository(): Promise<Figure[]> {
  log(`\n8. stdio get_handoff (${THREAD_SIZE} entries), ${STDIO_CALLS} calls each (interleaved rounds of 30): the server's working folder inside the git repository the thread was recorded in, and outside any:`);
  const repo = benchRepository("git@github.com:bench/read.git");
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), "baton-bench-outside-"));
  const id = await threadOf(THREAD_SIZE, "Recorded in a repository (see src/module3.ts)", repo);
  const inside = await connectStdioClient({ entry: "bin", cwd: repo });
  const away = await connectStdioClient({ entry: "bin", cwd: outside });
  try {
    for (const client of [inside.client, away.client]) {
      const answer = (await call(client, "get_handoff", { id })).structuredContent as { entries: unknown[]; staleness: unknown };
      if (answer.entries.length !== THREAD_SIZE || answer.staleness !== null) throw new Error("get_handoff did not carry the whole, current thread");
    }
    const [inRepo, outRepo] = await interleaved([inside.client, away.client], "get_handoff", () => ({ id }), STDIO_CALLS);
    log(`  inside the repository p50 ${msOf(median(inRepo))} p99 ${msOf(percentile(inRepo, 0.99))} · outside p50 ${msOf(median(outRepo))} p99 ${msOf(percentile(outRepo, 0.99))} · ×${f2(median(inRepo) / median(outRepo))}`);
    return [{ name: "stdio get_handoff 300 entries p50, in its git repository", value: median(inRepo), unit: "ms", reference: { value: median(outRepo), label: "outside one" } }];
  } finally {
    await Promise.all([inside.client.close(), away.client.close()]);
    fs.rmSync(repo, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  }
}
