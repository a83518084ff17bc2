import { describe, expect, it } from "vitest";
import { read, storedDate, write } from "../lib/database";
import { Conflict, Invalid, NotFound } from "../lib/errors";
import { closeHandoff } from "../lib/formats";
import {
  addEntry,
  createHandoff,
  extractHandoffId,
  findHandoffs,
  findProjects,
  getHandoff,
  markRead,
  MAX_CONTENT_BYTES,
} from "../lib/handoffs";

const unknownId = "hof_AAAAAAAAAAAAAAAAAAAAA";

async function expectError(promise: Promise<unknown>, type: new (...args: never[]) => Error, message: RegExp) {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(type);
  expect((error as Error).message).toMatch(message);
}

const onSqlite = process.env.BATON_TEST_ENGINE !== "postgres";

async function rowCounts() {
  return read(async (tx) => ({
    handoffs: (await tx.get<{ count: number }>("SELECT COUNT(*) AS count FROM handoffs"))!.count,
    entries: (await tx.get<{ count: number }>("SELECT COUNT(*) AS count FROM handoff_entries"))!.count,
  }));
}

/** `count` entries written straight into a thread in one statement (addEntry per entry would take long), "step 0" first. */
async function insertSteps(handoffId: string, count: number) {
  await write((tx) =>
    tx.run(
      `WITH RECURSIVE steps(step) AS (SELECT 0 UNION ALL SELECT step + 1 FROM steps WHERE step + 1 < ?)
       INSERT INTO handoff_entries (handoff_id, from_client, type, content, created_at)
       SELECT h.id, 'code', 'progress', 'step ' || step, h.created_at FROM steps, handoffs h WHERE h.id = ? ORDER BY step`,
      [count, handoffId],
    ),
  );
}

describe("connections", () => {
  // Waiting for another process's lock is lib/database's loop, whose pauses let the event loop run (concurrent-writers.test.ts).
  it.runIf(onSqlite)("use WAL, leave no wait to SQLite's own busy handler, and enforce foreign keys (SQLite)", async () => {
    const pragmas = await read(async (tx) => ({
      journal: await tx.get<{ journal_mode: string }>("PRAGMA journal_mode"),
      busy: await tx.get<{ timeout: number }>("PRAGMA busy_timeout"),
      fk: await tx.get<{ foreign_keys: number }>("PRAGMA foreign_keys"),
    }));
    expect(pragmas.journal?.journal_mode).toBe("wal");
    expect(pragmas.busy?.timeout).toBe(0);
    expect(pragmas.fk?.foreign_keys).toBe(1);
  });

  it("the database refuses an entry for a handoff that does not exist", async () => {
    await expect(
      write((tx) =>
        tx.run("INSERT INTO handoff_entries (handoff_id, from_client, type, content, created_at) VALUES (?, 'chat', 'task', 'x', ?)", [unknownId, storedDate()]),
      ),
    ).rejects.toThrow();
  });
});

describe("createHandoff", () => {
  it("stores the content as a context entry and sets the creator's cursor to its seq", async () => {
    const { handoff, entries } = await createHandoff({ title: "  Implement auth  ", content: "JWT", project: "hlg" });
    expect(handoff.id).toMatch(/^hof_[A-Za-z0-9_-]{21}$/);
    expect(handoff.title).toBe("Implement auth");
    expect(handoff.project).toBe("hlg");
    expect(handoff.status).toBe("active");
    expect(handoff.closedAt).toBeNull();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ type: "context", fromClient: "chat", content: "JWT", handoffId: handoff.id });
    expect(handoff.chatLastSeen).toBe(entries[0].seq);
    expect(handoff.codeLastSeen).toBe(0);
  });

  it("as code sets code's cursor, and a blank project means none", async () => {
    const { handoff, entries } = await createHandoff({ title: "t", content: "c", project: "  ", asClient: "code" });
    expect(handoff.project).toBeNull();
    expect(handoff.codeLastSeen).toBe(entries[0].seq);
    expect(handoff.chatLastSeen).toBe(0);
  });

  it("the first entry is not new to its creator even when thousands of entries exist elsewhere", async () => {
    const other = await createHandoff({ title: "busy thread", content: "start" });
    await insertSteps(other.handoff.id, 3000);
    const { handoff, entries } = await createHandoff({ title: "late thread", content: "hello", asClient: "code" });
    expect(entries[0].seq).toBeGreaterThan(3000);
    const asCreator = await getHandoff({ id: handoff.id, asClient: "code" });
    expect(asCreator.newCount).toBe(0);
    expect(asCreator.newEntries).toEqual([]);
    const asOtherSide = await getHandoff({ id: handoff.id, asClient: "chat" });
    expect(asOtherSide.newCount).toBe(1);
    expect(asOtherSide.newEntries[0].seq).toBe(entries[0].seq);
  });

  it.each([
    [{ title: "", content: "c" }, /^title must not be empty$/],
    [{ title: "x".repeat(201), content: "c" }, /^title must be at most 200 characters$/],
    [{ title: "t", content: "" }, /^content must not be empty$/],
    [{ title: "t", content: "   \n " }, /^content must not be empty$/],
    // Characters that print nothing (zero-width space, word joiner, Hangul filler, a variation selector) are not a title or an entry.
    [{ title: "\u200b\u2060 \u3164", content: "c" }, /^title must not be empty \(characters that print nothing, such as U\+200B, do not count\)$/],
    [{ title: "t", content: "\u200d\ufe0f\n\u00ad" }, /^content must not be empty \(characters that print nothing, such as U\+200B, do not count\)$/],
    [{ title: "t", content: "é".repeat(MAX_CONTENT_BYTES / 2 + 1) }, /content must be at most 64 KiB/],
    [{ title: "t", content: "c", project: "Has Caps" }, /^project must be 1–40 characters/],
    [{ title: "t", content: "c", project: "-lead" }, /^project must be/],
    [{ title: "t", content: "c", project: "x".repeat(41) }, /^project must be/],
    [{ title: "t", content: "c", asClient: "desktop" }, /^asClient: as_client must be "chat" or "code"/],
    [{ content: "c" }, /^title is required$/],
  ])("refuses invalid input %j and stores nothing", async (input, message) => {
    const before = await rowCounts();
    await expectError(createHandoff(input as never), Invalid, message);
    expect(await rowCounts()).toEqual(before);
  });

  it("accepts content of exactly 64 KiB and a 200-character title", async () => {
    const { entries, handoff } = await createHandoff({ title: "x".repeat(200), content: "a".repeat(MAX_CONTENT_BYTES) });
    expect(handoff.title).toHaveLength(200);
    expect(entries[0].content).toHaveLength(MAX_CONTENT_BYTES);
  });

  it("Invalid carries field errors for every bad field", async () => {
    const error = await createHandoff({ title: "", content: "", project: "BAD" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Invalid);
    expect(Object.keys((error as Invalid).fieldErrors).sort()).toEqual(["content", "project", "title"]);
  });
});

describe("getHandoff", () => {
  it("refuses a malformed id and names an unknown one", async () => {
    await expectError(getHandoff({ id: "hof_short" }), Invalid, /"hof_short" is not a handoff ID/);
    await expectError(getHandoff({ id: "abc" }), Invalid, /not a handoff ID/);
    await expectError(getHandoff({ id: unknownId }), NotFound, new RegExp(`handoff ${unknownId} not found`));
  });

  it("shows new entries per side and never moves a cursor", async () => {
    const { handoff } = await createHandoff({ title: "t", content: "from chat" });
    await addEntry({ id: handoff.id, type: "question", content: "7d or 30d?", asClient: "code" });
    const first = await getHandoff({ id: handoff.id, asClient: "chat" });
    const second = await getHandoff({ id: handoff.id, asClient: "chat" });
    expect(first.newCount).toBe(1);
    expect(second.newCount).toBe(1);
    expect(second.handoff.chatLastSeen).toBe(first.handoff.chatLastSeen);
    expect(first.entries.map((entry) => entry.type)).toEqual(["context", "question"]);
  });

  it("names a one-entry range in its hint as that entry, not as a range of one (#2, not #2–#2)", async () => {
    const { handoff } = await createHandoff({ title: "three", content: "one" });
    await addEntry({ id: handoff.id, type: "task", content: "two" });
    await addEntry({ id: handoff.id, type: "task", content: "three" });
    const { entries } = await getHandoff({ id: handoff.id });
    const thread = await getHandoff({ id: handoff.id, afterSeq: entries[0].seq, limit: 1 });
    expect(thread.hint).toBe(`This answer carries 1 entry (#2) (limit=1). Left out 1 later entry (#3): call get_handoff with after_seq=${entries[1].seq} to read on.`);
    const back = await getHandoff({ id: handoff.id, beforeSeq: entries[2].seq, limit: 1 });
    expect(back.hint).toBe(
      `This answer carries 1 entry (#2) (limit=1). Left out 1 earlier entry (#1): call get_handoff with before_seq=${entries[1].seq} to read back from there (newest first), or after_seq=0 to read them from the start.`,
    );
    const two = await getHandoff({ id: handoff.id, afterSeq: 0, limit: 2 });
    expect(two.hint).toMatch(/^This answer carries 2 entries \(#1–#2\) \(limit=2\)\. Left out 1 later entry \(#3\):/);
  });
});

describe("addEntry", () => {
  it("appends, advances only the writer's cursor and bumps updatedAt", async () => {
    const { handoff } = await createHandoff({ title: "t", content: "c" });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const { entry, handoff: after } = await addEntry({ id: handoff.id, type: "progress", content: "half done", asClient: "code" });
    expect(entry).toMatchObject({ type: "progress", fromClient: "code", content: "half done" });
    expect(after.codeLastSeen).toBe(entry.seq);
    expect(after.chatLastSeen).toBe(handoff.chatLastSeen);
    expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(handoff.updatedAt));
  });

  it("defaults to chat", async () => {
    const { handoff } = await createHandoff({ title: "t", content: "c", asClient: "code" });
    const { entry, handoff: after } = await addEntry({ id: handoff.id, type: "decision", content: "30 days" });
    expect(entry.fromClient).toBe("chat");
    expect(after.chatLastSeen).toBe(entry.seq);
  });

  it("seqs interleave across threads and strictly increase", async () => {
    const a = await createHandoff({ title: "a", content: "a0" });
    const b = await createHandoff({ title: "b", content: "b0" });
    const seqs: number[] = [b.entries[0].seq];
    for (let round = 0; round < 5; round++) {
      seqs.push((await addEntry({ id: a.handoff.id, type: "progress", content: `a${round}` })).entry.seq);
      seqs.push((await addEntry({ id: b.handoff.id, type: "progress", content: `b${round}` })).entry.seq);
    }
    expect(seqs[0]).toBeGreaterThan(a.entries[0].seq);
    for (let index = 1; index < seqs.length; index++) expect(seqs[index]).toBeGreaterThan(seqs[index - 1]);
    const threadA = await getHandoff({ id: a.handoff.id });
    expect(threadA.entries.map((entry) => entry.content)).toEqual(["a0", "a0", "a1", "a2", "a3", "a4"]);
  });

  it("refuses a completed handoff and stores nothing", async () => {
    const { handoff } = await createHandoff({ title: "t", content: "c" });
    await closeHandoff({ id: handoff.id });
    const before = await rowCounts();
    const stored = (await getHandoff({ id: handoff.id })).handoff;
    await new Promise((resolve) => setTimeout(resolve, 5)); // a bump would now show as a later time
    await expectError(
      addEntry({ id: handoff.id, type: "task", content: "late" }),
      Conflict,
      new RegExp(`handoff ${handoff.id} is completed; entries can no longer be added`),
    );
    expect(await rowCounts()).toEqual(before);
    // The refused append touched nothing: not the cursors, not updatedAt.
    expect((await getHandoff({ id: handoff.id })).handoff).toEqual(stored);
  });

  it.each([
    [{ type: "note", content: "x" }, /^type must be one of context, task, progress, question, decision, done/],
    [{ type: "task", content: "" }, /content must not be empty/],
    [{ type: "task", content: "\u200b" }, /^content must not be empty \(characters that print nothing/],
    [{ type: "task", content: "x".repeat(MAX_CONTENT_BYTES + 1) }, /content must be at most 64 KiB/],
    [{ type: "task", content: "x", asClient: "robot" }, /^asClient: as_client must be "chat" or "code"/],
  ])("refuses %j and stores nothing", async (input, message) => {
    const { handoff } = await createHandoff({ title: "t", content: "c" });
    const before = await rowCounts();
    await expectError(addEntry({ id: handoff.id, ...input } as never), Invalid, message);
    expect(await rowCounts()).toEqual(before);
  });

  it("names an unknown handoff", async () => {
    await expectError(addEntry({ id: unknownId, type: "task", content: "x" }), NotFound, /not found/);
  });
});

describe("markRead", () => {
  it("moves that side's cursor to the highest seq, after which nothing is new", async () => {
    const { handoff } = await createHandoff({ title: "t", content: "c" });
    const { entry, handoff: written } = await addEntry({ id: handoff.id, type: "question", content: "?", asClient: "code" });
    await new Promise((resolve) => setTimeout(resolve, 5)); // a bump would now show as a later time
    const read = await markRead({ id: handoff.id, asClient: "chat" });
    expect(read.chatLastSeen).toBe(entry.seq);
    expect(read.codeLastSeen).toBe(entry.seq);
    // Reading is not activity: the history's order (updatedAt) stays where the last write put it.
    expect(read.updatedAt).toBe(written.updatedAt);
    expect((await getHandoff({ id: handoff.id, asClient: "chat" })).newCount).toBe(0);
  });

  it("never moves a cursor backward", async () => {
    const { handoff } = await createHandoff({ title: "t", content: "c" });
    const ahead = handoff.chatLastSeen + 1000;
    await write((tx) => tx.run("UPDATE handoffs SET chat_last_seen = ? WHERE id = ?", [ahead, handoff.id]));
    expect((await markRead({ id: handoff.id, asClient: "chat" })).chatLastSeen).toBe(ahead);
    await closeHandoff({ id: handoff.id });
    const closed = await markRead({ id: handoff.id, asClient: "code" });
    expect(closed.codeLastSeen).toBe(0);
    expect(closed.chatLastSeen).toBe(ahead);
  });

  it("refuses bad ids", async () => {
    await expectError(markRead({ id: unknownId }), NotFound, /not found/);
    await expectError(markRead({ id: "nope" }), Invalid, /not a handoff ID/);
  });
});

describe("closeHandoff", () => {
  it("wipes entries, keeps the row completed, and a second close is a no-op", async () => {
    const { handoff } = await createHandoff({ title: "t", content: "c", project: "dnd" });
    await addEntry({ id: handoff.id, type: "done", content: "PR #42", asClient: "code" });
    const { handoff: closed, artifactId } = await closeHandoff({ id: handoff.id });
    expect(artifactId).toBeNull();
    expect(closed.status).toBe("completed");
    expect(closed.closedAt).not.toBeNull();
    expect(closed.title).toBe("t");
    const thread = await getHandoff({ id: handoff.id });
    expect(thread.entries).toEqual([]);
    expect(thread.newCount).toBe(0);
    const stored = await read((tx) => tx.get<{ count: number }>("SELECT COUNT(*) AS count FROM handoff_entries WHERE handoff_id = ?", [handoff.id]));
    expect(stored?.count).toBe(0);
    const again = await closeHandoff({ id: handoff.id });
    expect(again.handoff).toEqual(closed);
  });

  it("refuses bad ids", async () => {
    await expectError(closeHandoff({ id: unknownId }), NotFound, /not found/);
    await expectError(closeHandoff({ id: "hof_" }), Invalid, /not a handoff ID/);
  });
});

describe("findHandoffs", () => {
  it("lists by last activity with entry counts and unread per side, filtered and paged", async () => {
    const first = await createHandoff({ title: "Alpha search target", content: "c", project: "listing" });
    const second = await createHandoff({ title: "Beta", content: "c", project: "listing", asClient: "code" });
    await addEntry({ id: first.handoff.id, type: "question", content: "?", asClient: "code" });
    await addEntry({ id: first.handoff.id, type: "progress", content: "p", asClient: "code" });
    const third = await createHandoff({ title: "Gamma", content: "c", project: "listing" });
    await closeHandoff({ id: third.handoff.id });

    const page = await findHandoffs({ project: "listing" });
    expect(page.items.map((item) => item.title)).toEqual(["Gamma", "Alpha search target", "Beta"]);
    // Code wrote the two latest entries, so its cursor passed chat's context entry too.
    expect(page.items[1]).toMatchObject({ entryCount: 3, chatUnread: 2, codeUnread: 0, sourceFormat: null });
    expect(page.items[2]).toMatchObject({ entryCount: 1, chatUnread: 1, codeUnread: 0 });
    expect(page.items[0]).toMatchObject({ entryCount: 0, status: "completed" });

    expect((await findHandoffs({ project: "listing", status: "active" })).total).toBe(2);
    expect((await findHandoffs({ q: "search tar*" })).items.map((item) => item.id)).toEqual([first.handoff.id]);
    expect((await findHandoffs({ q: "SEARCH" })).total).toBe(1);
    // Whole words: a search is full-text (tests/search.test.ts), no longer a substring of titles.
    expect((await findHandoffs({ q: "search tar" })).total).toBe(0);
    const paged = await findHandoffs({ project: "listing", perPage: 2, page: 2 });
    expect(paged).toMatchObject({ total: 3, pageCount: 2, page: 2 });
    expect(paged.items.map((item) => item.id)).toEqual([second.handoff.id]);
    expect(await findProjects()).toContain("listing");
    // Each tag once, in order: what DISTINCT answers, found one seek per tag.
    const distinct = await read((tx) => tx.all<{ project: string }>("SELECT DISTINCT project FROM handoffs WHERE project IS NOT NULL ORDER BY project"));
    expect(await findProjects()).toEqual(distinct.map((row) => row.project));
  });

  it("refuses bad filters", async () => {
    await expectError(findHandoffs({ status: "open" }), Invalid, /status must be "active" or "completed"/);
    await expectError(findHandoffs({ page: 0 }), Invalid, /page must be a whole number from 1/);
    await expectError(findHandoffs({ unread: "yes" }), Invalid, /unread must be "chat" or "code"/);
    await expectError(findHandoffs({ q: "x".repeat(201) }), Invalid, /search must be at most 200 characters/);
  });
});

describe("extractHandoffId", () => {
  const id = "hof_V1StGXR8_Z5jdHi6B-myT";
  it.each([
    [id],
    [`  ${id}  `],
    [`\`${id}\``],
    [`"${id}"`],
    [`'${id}'.`],
    [`http://127.0.0.1:3000/handoffs/${id}`],
    [`http://127.0.0.1:3000/handoffs/${id}?as=code#entry-4`],
    [`Handoff created: ${id}. Paste this ID into Claude Code.`],
  ])("finds the id in %s", (pasted) => {
    expect(extractHandoffId(pasted)).toBe(id);
  });

  it.each([[""], ["hof_abc"], [`${id}X`], ["hello"]])("finds none in %j", (pasted) => {
    expect(extractHandoffId(pasted)).toBeNull();
  });
});
