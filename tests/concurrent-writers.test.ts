import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { expect, it } from "vitest";
import { pruneChanges } from "../lib/changes";
import { databaseFile, databaseUrl } from "../lib/config";
import { read, write } from "../lib/database";
import { Unavailable } from "../lib/errors";
import { addEntry, createHandoff, findHandoffs, getHandoff } from "../lib/handoffs";

const run = promisify(execFile);
const worker = path.join(import.meta.dirname, "support", "append-worker.ts");
const PER_PROCESS = 150;
const onSqlite = process.env.BATON_TEST_ENGINE !== "postgres";

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

  const stored = await read((tx) => tx.rows<[number]>("SELECT seq FROM handoff_entries WHERE handoff_id IN (?, ?) ORDER BY seq", [a.handoff.id, b.handoff.id]));
  // Every reported seq is stored, besides the two first entries.
  expect(stored.map(([seq]) => seq)).toEqual([a.entries[0].seq, b.entries[0].seq, ...allSeqs.sort((x, y) => x - y)]);
  const threadA = await getHandoff({ id: a.handoff.id });
  expect(threadA.entries).toHaveLength(1 + (sides.length * PER_PROCESS) / 2);
  // Appends to one handoff wait for each other (its row lock on PostgreSQL), so its seqs follow
  // commit order: each side's cursor, moved by its last committed append, is its highest seq.
  const highestTo = (side: string, handoff: "a" | "b") =>
    Math.max(...perProcess.filter((_, index) => sides[index] === side).flatMap((seqs) => seqs.filter((_, index) => index % 2 === (handoff === "a" ? 0 : 1))));
  expect(threadA.handoff).toMatchObject({ chatLastSeen: highestTo("chat", "a"), codeLastSeen: highestTo("code", "a") });
});

/** Counts the turns of this process's event loop (a 10 ms timer's) until stopped: a wait that blocks it counts none. */
function countTurns(): () => number {
  let turns = 0;
  const timer = setInterval(() => turns++, 10);
  return () => {
    clearInterval(timer);
    return turns;
  };
}

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

it.runIf(onSqlite)("a write waits for a lock another process holds, takes it once released, and the event loop runs meanwhile", async () => {
  const { handoff } = await createHandoff({ title: "locked", content: "start" });
  const holder = await lockHolder();
  const turns = countTurns();
  const started = performance.now();
  const inserted = await write((tx) =>
    tx.get<{ seq: number }>(
      "INSERT INTO handoff_entries (handoff_id, from_client, type, content, created_at) VALUES (?, 'chat', 'progress', 'after the lock', '2026-01-01T00:00:00.000+00:00') RETURNING seq",
      [handoff.id],
    ),
  );
  const waited = performance.now() - started;
  expect(inserted?.seq).toBeGreaterThan(0);
  expect(waited).toBeGreaterThan(250);
  // SQLite's own busy handler sleeps in this thread: waiting in it, the timer fired not once.
  expect(turns()).toBeGreaterThan(10);
  await holder.exited;
});

it.runIf(onSqlite)("housekeeping that waits at most 50 ms for the lock gives up as Unavailable (busy) instead of blocking", async () => {
  const holder = await lockHolder();
  // The holder keeps the lock for 400 ms: a throw means the prune gave up before then.
  await expect(pruneChanges({ keepRows: 0, waitMs: 50 })).rejects.toThrow(Unavailable);
  await expect(pruneChanges({ keepRows: 0, waitMs: 50 })).rejects.toThrow(/^the database is busy: another process kept it locked for the 50 ms Baton waits/);
  await holder.exited;
});

it.runIf(!onSqlite)("an append waits for the handoff's row lock another connection holds, and a close taken meanwhile refuses it", async () => {
  const { handoff } = await createHandoff({ title: "row locked", content: "start" });
  const other = new pg.Client({ connectionString: databaseUrl() });
  await other.connect();
  try {
    await other.query("BEGIN");
    await other.query("SELECT 1 FROM handoffs WHERE id = $1 FOR UPDATE", [handoff.id]);
    const started = performance.now();
    // The refusal's handler is attached now: the append may settle before COMMIT's answer is read.
    const refused = expect(addEntry({ id: handoff.id, type: "progress", content: "after the lock" })).rejects.toThrow(/is completed/);
    await new Promise((resolve) => setTimeout(resolve, 400));
    // The other connection closes the thread while the append waits: the append sees it completed.
    await other.query("DELETE FROM handoff_entries WHERE handoff_id = $1", [handoff.id]);
    await other.query("UPDATE handoffs SET status = 'completed' WHERE id = $1", [handoff.id]);
    await other.query("COMMIT");
    await refused;
    expect(performance.now() - started).toBeGreaterThan(350);
    const left = await read((tx) => tx.get<{ count: number }>("SELECT COUNT(*) AS count FROM handoff_entries WHERE handoff_id = ?", [handoff.id]));
    expect(left?.count).toBe(0);
  } finally {
    await other.end();
  }
});

it.runIf(!onSqlite)("a connection the server ends between two statements fails its transaction as Unavailable and nothing else: the process goes on and the next write succeeds", async () => {
  const { handoff } = await createHandoff({ title: "cut mid-transaction", content: "start" });
  const admin = new pg.Client({ connectionString: databaseUrl() });
  await admin.connect();
  try {
    const cut = write(async (tx) => {
      const backend = await tx.get<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      await admin.query("SELECT pg_terminate_backend($1)", [backend!.pid]);
      // The server's FATAL arrives while no statement runs on this connection (as in a restart).
      await new Promise((resolve) => setTimeout(resolve, 200));
      await tx.run("UPDATE handoffs SET title = 'never stored' WHERE id = ?", [handoff.id]);
    });
    await expect(cut).rejects.toThrow(Unavailable);
    const { entry } = await addEntry({ id: handoff.id, type: "progress", content: "after the cut" });
    expect(entry.content).toBe("after the cut");
    expect((await getHandoff({ id: handoff.id })).handoff.title).toBe("cut mid-transaction");
  } finally {
    await admin.end();
  }
});
