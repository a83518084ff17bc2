import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { beforeAll, describe, expect, it } from "vitest";
import { databaseFile, dataDir } from "../lib/config";
import { LEFTOVER_AGE_MS } from "../lib/agents/write-shift-document";
import { checkCrashRun, crashViolations, describeCrashReport, runCrashScenario, startHttpDoor, stopHttpDoor, type CrashRun } from "./support/crash-rig";

// Issue 8, point 7: real writer processes (3 stdio MCP servers, 2 MCP HTTP doors each in its own
// process) append to shared threads while threads are closed; two of them are SIGKILLed mid-call
// and restarted. The longer run is `npm run bench crash`.
describe("crash safety: writers killed mid-call, threads closed mid-run", () => {
  let run: CrashRun;

  beforeAll(async () => {
    run = await runCrashScenario({
      stdioWriters: 3,
      httpWriters: 2,
      openThreads: 3,
      kills: 2,
      closes: 3,
      // Both, so a loaded machine runs longer instead of testing less.
      until: { ms: 10_000, acks: 300 },
      maxMs: 60_000,
    });
  });

  it("keeps every acknowledged entry exactly once, nothing after a close, cursors in range, integrity ok", () => {
    const report = checkCrashRun(run);
    const summary = describeCrashReport(report).join("\n");
    console.log(summary);

    // The run exercised what it is meant to: a stdio and an HTTP writer killed and restarted,
    // closes acknowledged while appends kept arriving for the closed threads.
    expect(report.kills, summary).toBe(2);
    expect(report.restarts, summary).toBeGreaterThanOrEqual(2);
    expect(report.closes, summary).toBe(3);
    expect(report.timedOut, summary).toBe(false);
    expect(report.acks, summary).toBeGreaterThanOrEqual(300);
    expect(report.refusedAsCompleted, summary).toBeGreaterThan(0);

    expect(crashViolations(report), summary).toEqual([]);
    expect(report.problems, summary).toEqual([]);
  });

  it("the checks notice a lost entry, a duplicate, entries after a close, an unknown entry and a cursor past the end", () => {
    const isOpen = (attempt: CrashRun["attempts"][number]) => attempt.thread.closeAckAt === undefined;
    const ackedOnOpen = run.attempts.filter((attempt) => attempt.outcome === "acked" && attempt.writer !== "control" && isOpen(attempt));
    const refusedAfterClose = run.attempts.filter(
      (attempt) => attempt.outcome === "refused" && attempt.thread.closeAckAt !== undefined && attempt.sentAt > attempt.thread.closeAckAt,
    );
    expect(ackedOnOpen.length).toBeGreaterThanOrEqual(2);
    expect(refusedAfterClose.length).toBeGreaterThanOrEqual(2);

    const database = new Database(databaseFile());
    try {
      database.prepare("DELETE FROM handoff_entries WHERE content = ?").run(ackedOnOpen[0].token);
      const copy = (handoffId: string, content: string, like: string) =>
        database
          .prepare(
            "INSERT INTO handoff_entries (handoff_id, from_client, type, content, created_at) SELECT ?, from_client, type, ?, created_at FROM handoff_entries WHERE content = ? LIMIT 1",
          )
          .run(handoffId, content, like);
      copy(ackedOnOpen[1].thread.id, ackedOnOpen[1].token, ackedOnOpen[1].token);
      copy(refusedAfterClose[0].thread.id, refusedAfterClose[0].token, ackedOnOpen[1].token);
      copy(ackedOnOpen[1].thread.id, "written by nobody", ackedOnOpen[1].token);
      database.prepare("UPDATE handoffs SET code_last_seen = 1000000 WHERE id = ?").run(ackedOnOpen[1].thread.id);
    } finally {
      database.close();
    }
    // And one refusal after a close that the driver had been told was a success.
    const accepted = refusedAfterClose[1];
    const tampered: CrashRun = {
      ...run,
      attempts: run.attempts.map((attempt) => (attempt === accepted ? { ...attempt, outcome: "acked", seq: 1 } : attempt)),
    };

    const report = checkCrashRun(tampered);
    expect({
      lost: report.lost,
      duplicated: report.duplicated,
      misplaced: report.misplaced,
      completedWithEntries: report.completedWithEntries,
      refusedButStored: report.refusedButStored,
      acceptedAfterClose: report.acceptedAfterClose,
      notRefusedAfterClose: report.notRefusedAfterClose,
      unknownEntries: report.unknownEntries,
      cursorsPastMax: report.cursorsPastMax,
      integrity: report.integrity,
    }).toEqual({
      lost: 1,
      duplicated: 1,
      misplaced: 0,
      completedWithEntries: 1,
      refusedButStored: 1,
      acceptedAfterClose: 1,
      notRefusedAfterClose: 1,
      unknownEntries: 1,
      cursorsPastMax: 1,
      integrity: "ok",
    });
    expect(crashViolations(report)).toEqual(expect.arrayContaining(["lost: 1", "duplicated: 1", "acceptedAfterClose: 1", "cursorsPastMax: 1"]));
  });
});

// A handoff writes its document, then commits its record: a server killed between the two leaves a
// document no record names (and the agent still active, to hand off again).
describe("a shift handoff killed between its document and its record", () => {
  const post = (origin: string, route: string, body: unknown) =>
    fetch(`${origin}${route}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const folderOf = (persona: string) => path.join(dataDir(), "personas", persona, "handoffs");
  const documentsIn = (folder: string) => (fs.existsSync(folder) ? fs.readdirSync(folder).sort() : []);
  /** The name's `YYYYMMDDTHHmmss`: the second its handoff wrote it in. */
  const secondOf = (name: string) => name.slice(0, 15);

  /** Registers an agent of `persona` on `origin`, starts its handoff there with the database locked, and SIGKILLs `door` once the document is written. */
  async function killMidHandoff(origin: string, door: ChildProcess, persona: string) {
    const agent = (await (await post(origin, "/api/agents", { personaSlug: persona })).json()) as { id: number; shortId: string };
    const folder = folderOf(persona);
    // Another connection holds SQLite's write lock: the handoff writes its document, then waits for the lock.
    const holder = new Database(databaseFile());
    holder.exec("BEGIN IMMEDIATE");
    // Early in a second: what follows the kill happens in the second the document is named after.
    while (Date.now() % 1_000 > 100) await new Promise((resolve) => setTimeout(resolve, 5));
    const killed = post(origin, `/api/agents/${agent.id}/handoff`, { reason: "context_limit", document: "## Goal\nThe first try.\n" }).catch(() => "no answer");
    const deadline = Date.now() + 8_000;
    while (!documentsIn(folder).some((name) => name.endsWith(".md"))) {
      if (Date.now() > deadline) throw new Error("the handoff wrote no document");
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    process.kill(-door.pid!, "SIGKILL");
    expect(await killed).toBe("no answer");
    holder.exec("ROLLBACK");
    holder.close();
    // The document, and its temporary file when the kill came before that was removed.
    const document = documentsIn(folder).filter((name) => name.endsWith(".md"));
    expect(document).toHaveLength(1);
    // Killed a moment earlier, it leaves its temporary file alone (written, not yet linked): as one would be.
    const temporary = `.${document[0]}.0123456789ab.tmp`;
    fs.writeFileSync(path.join(folder, temporary), "## Goal\nThe first try.\n");
    return { agent, folder, leftOver: [document[0], temporary].sort() };
  }

  it("a retry in the same second succeeds (the leftover is no handoff under way) and removes what the killed one left", async () => {
    // Started first, so the retry follows the kill at once.
    const second = await startHttpDoor();
    const first = await startHttpDoor();
    try {
      const { agent, folder, leftOver } = await killMidHandoff(first.origin, first.door, "killed-mid-handoff");
      const handed = await post(second.origin, `/api/agents/${agent.id}/handoff`, { reason: "context_limit", document: "## Goal\nThe second try.\n" });
      expect(handed.status, await handed.clone().text()).toBe(201);
      const { record } = (await handed.json()) as { record: { filePath: string } };
      const written = path.basename(record.filePath);
      // The case that was refused: named in the second the killed handoff named its document in.
      expect(secondOf(written)).toBe(secondOf(leftOver.find((name) => name.endsWith(".md"))!));
      expect(documentsIn(folder)).toEqual([written]);
    } finally {
      await stopHttpDoor(first.door, "SIGKILL");
      await stopHttpDoor(second.door, "SIGKILL");
    }
  }, 60_000);

  it("what it left is removed when a server starts, though the agent never hands off again; an attempt under way and another database's documents stay", async () => {
    const first = await startHttpDoor();
    const { agent, folder, leftOver } = await killMidHandoff(first.origin, first.door, "killed-never-retried");
    // Left long enough ago to be no attempt under way.
    const longAgo = new Date(Date.now() - LEFTOVER_AGE_MS - 60_000);
    for (const name of leftOver) fs.utimesSync(path.join(folder, name), longAgo, longAgo);
    // A document just written, its record not yet committed: an attempt under way, whatever its agent.
    const underWay = `20990101T000000-${agent.shortId}-0a0b0c0d.md`;
    fs.writeFileSync(path.join(folder, underWay), "## Goal\nUnder way.\n");
    // An old document of an agent this database does not know: not its to remove.
    const unknown = "20200101T000000-ffffffff-0a0b0c0d.md";
    fs.writeFileSync(path.join(folder, unknown), "## Goal\nAnother database's.\n");
    fs.utimesSync(path.join(folder, unknown), longAgo, longAgo);

    const second = await startHttpDoor();
    try {
      const deadline = Date.now() + 10_000;
      while (documentsIn(folder).some((name) => leftOver.includes(name)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(documentsIn(folder)).toEqual([underWay, unknown].sort());
      const stillActive = (await (await fetch(`${second.origin}/api/agents/${agent.id}`)).json()) as { status: string; handoff: unknown };
      expect(stillActive).toMatchObject({ status: "active", handoff: null });
    } finally {
      await stopHttpDoor(second.door, "SIGKILL");
    }
  }, 60_000);
});
