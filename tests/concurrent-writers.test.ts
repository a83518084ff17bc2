import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { pruneChanges } from "../lib/changes";
import { databaseFile } from "../lib/config";
import { db } from "../lib/db";
import { createHandoff, findHandoffs, getHandoff } from "../lib/handoffs";
import { BUSY_TIMEOUT_MS, sql, write } from "../lib/sqlite";

const run = promisify(execFile);
const worker = path.join(import.meta.dirname, "support", "append-worker.ts");
const PER_PROCESS = 150;

it("several processes append to the same threads at once without losing or duplicating an entry", async () => {
  const a = await createHandoff({ title: "shared a", content: "start" });
  const b = await createHandoff({ title: "shared b", content: "start" });
  const sides = ["chat", "code", "chat"];
  const reading = (async () => {
    let reads = 0;
    while (reads < 200) {
      await getHandoff({ id: a.handoff.id });
      await findHandoffs({});
      reads++;
    }
    return reads;
  })();
  const outputs = await Promise.all(
    sides.map((side) =>
      run(process.execPath, ["--import", "tsx", worker, a.handoff.id, b.handoff.id, String(PER_PROCESS), side], {
        env: process.env,
        timeout: 120_000,
      }),
    ),
  );
  expect(await reading).toBe(200);
  const perProcess = outputs.map(({ stdout }) => {
    expect(stdout.trim()).toMatch(/^ok /);
    return JSON.parse(stdout.trim().slice(3)) as number[];
  });
  for (const seqs of perProcess) {
    expect(seqs).toHaveLength(PER_PROCESS);
    for (let index = 1; index < seqs.length; index++) expect(seqs[index]).toBeGreaterThan(seqs[index - 1]);
  }
  const allSeqs = perProcess.flat();
  expect(new Set(allSeqs).size).toBe(allSeqs.length);

  const prisma = await db();
  const stored = await prisma.entry.findMany({
    where: { handoffId: { in: [a.handoff.id, b.handoff.id] }, seq: { in: allSeqs } },
    orderBy: { seq: "asc" },
  });
  expect(stored).toHaveLength(sides.length * PER_PROCESS);
  const threadA = await getHandoff({ id: a.handoff.id });
  expect(threadA.entries).toHaveLength(1 + (sides.length * PER_PROCESS) / 2);
});

/** Another process that takes the write lock and holds it for 400 ms; resolves once it holds it. */
async function lockHolder() {
  const holder = execFile(process.execPath, [
    "-e",
    `const db = new (require("better-sqlite3"))(process.argv[1]); db.exec("BEGIN IMMEDIATE"); process.stdout.write("held\\n");
     setTimeout(() => { db.exec("COMMIT"); db.close(); }, 400);`,
    databaseFile(),
  ]);
  await new Promise<void>((resolve) => holder.stdout?.once("data", () => resolve()));
  return { exited: new Promise((resolve) => holder.once("exit", resolve)) };
}

it("a write waits for a lock another process holds, takes it once released, and leaves SQLite's busy timeout as it was", async () => {
  const { handoff } = await createHandoff({ title: "locked", content: "start" });
  const holder = await lockHolder();
  const started = performance.now();
  const seq = write((tx) => (tx.statement("INSERT INTO handoff_entries (handoff_id, from_client, type, content, created_at) VALUES (?, 'chat', 'progress', 'after the lock', '2026-01-01T00:00:00.000+00:00') RETURNING seq").get(handoff.id) as { seq: number }).seq);
  const waited = performance.now() - started;
  expect(seq).toBeGreaterThan(0);
  expect(waited).toBeGreaterThan(250);
  expect(sql().connection.pragma("busy_timeout", { simple: true })).toBe(BUSY_TIMEOUT_MS);
  await holder.exited;
});

it("housekeeping that waits at most 50 ms for the lock gives up with SQLITE_BUSY instead of blocking", async () => {
  const holder = await lockHolder();
  // The holder keeps the lock for 400 ms: a throw means the prune gave up before then.
  expect(() => pruneChanges({ keepRows: 0, waitMs: 50 })).toThrow(expect.objectContaining({ code: "SQLITE_BUSY" }));
  expect(sql().connection.pragma("busy_timeout", { simple: true })).toBe(BUSY_TIMEOUT_MS);
  await holder.exited;
});
