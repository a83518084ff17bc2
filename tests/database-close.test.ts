import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { createToken, verifyToken } from "../lib/auth";
import { changeFeedStats, subscribe, type FeedEvent } from "../lib/changes";
import { closeDatabase } from "../lib/database";
import { CHECK_INTERVAL_MS } from "../lib/changes/follow-sqlite";
import { endWhenRevoked, REVOCATION_CHECK_MS } from "../lib/guard";
import { addEntry, createHandoff } from "../lib/handoffs";

/**
 * Work that reads the database on a timer stops when the database closes (a server's shutdown,
 * the end of a test file): the change feed's follower and the revocation watch. Before, their
 * next tick opened the database again; on SQLite that made the file, and the folder a test's
 * teardown had just removed, anew.
 */
const sqlite = process.env.BATON_TEST_ENGINE !== "postgres";
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const quiet = Math.max(CHECK_INTERVAL_MS, REVOCATION_CHECK_MS) * 3;

/** Moves the data folder away while `during` runs, then back: whether anything made it anew meanwhile. */
async function folderMadeAgainDuring(during: () => Promise<void>): Promise<boolean> {
  const folder = process.env.BATON_DATA_DIR!;
  const aside = `${folder}-aside`;
  fs.renameSync(folder, aside);
  try {
    await during();
    return fs.existsSync(folder);
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
    fs.renameSync(aside, folder);
  }
}

describe("closing the database", () => {
  it("stops the change feed's follower; a subscription after the reopen follows again", async () => {
    const { handoff } = await createHandoff({ title: "Close stops the feed", content: "start" });
    const first = await subscribe({}, () => undefined);
    await closeDatabase();
    const checks = changeFeedStats().checks;
    const madeAgain = await folderMadeAgainDuring(() => sleep(quiet));
    expect(changeFeedStats().checks).toBe(checks);
    if (sqlite) expect(madeAgain).toBe(false);

    const after: FeedEvent[] = [];
    const second = await subscribe({}, (event) => after.push(event));
    await addEntry({ id: handoff.id, type: "progress", content: "after the reopen" });
    await expect.poll(() => after.some((event) => event.kind === "change" && event.change.handoffId === handoff.id), { timeout: 5_000 }).toBe(true);
    first.close();
    second.close();
  });

  it("ends every stream the revocation watch holds, once, and checks nothing more", async () => {
    const { token } = await createToken({ name: "close-watch", role: "agent" });
    const principal = (await verifyToken(token))!;
    const caller = { who: { kind: "token" as const, ...principal }, local: true };
    let ended = 0;
    endWhenRevoked(caller, () => ended++);
    await sleep(REVOCATION_CHECK_MS * 2);
    expect(ended).toBe(0);
    await closeDatabase();
    expect(ended).toBe(1);
    const madeAgain = await folderMadeAgainDuring(() => sleep(quiet));
    expect(ended).toBe(1);
    if (sqlite) expect(madeAgain).toBe(false);
  });
});
