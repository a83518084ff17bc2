import path from "node:path";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { write } from "../lib/database";
import { closeHandoff } from "../lib/formats";
import { addEntry, createHandoff, getHandoff, markRead } from "../lib/handoffs";
import { connectStdioClient } from "./support/mcp-clients";
import { runBaton } from "./support/baton-command";
import { SECRET_SAMPLES, secretPartOf } from "./fixtures/secrets/corpus";

const run = promisify(execFile);
const worker = path.join(import.meta.dirname, "support", "append-worker.ts");

/**
 * lib/handoffs/get-handoff.ts: a whole-thread read is answered again from what the last one made
 * while the thread is as it was (nothing changed the database, or the thread's row did not move),
 * and any change to it, from this process or another, is in the very next read.
 */
describe("remembered whole-thread reads", () => {
  it("answer an unchanged thread with the same frozen objects, which no caller can change", async () => {
    const { handoff } = await createHandoff({ title: "read twice", content: "first" });
    await addEntry({ id: handoff.id, type: "progress", content: "second", asClient: "code" });
    const first = await getHandoff({ id: handoff.id });
    const again = await getHandoff({ id: handoff.id });
    expect(again).toBe(first);
    expect(() => (first.entries as unknown[]).push("more")).toThrow(TypeError);
    expect(() => Object.assign(first.entries[0], { content: "changed" })).toThrow(TypeError);
    // Each side, and a paged read, is its own answer.
    expect(await getHandoff({ id: handoff.id, asClient: "code" })).not.toBe(first);
    expect((await getHandoff({ id: handoff.id, afterSeq: 0 })).entries).toEqual(first.entries);
  });

  it("see this process's append, mark-read and close in the next read", async () => {
    const { handoff } = await createHandoff({ title: "changes here", content: "first" });
    expect((await getHandoff({ id: handoff.id })).entries).toHaveLength(1);
    await addEntry({ id: handoff.id, type: "question", content: "new from code", asClient: "code" });
    const afterAppend = await getHandoff({ id: handoff.id });
    expect(afterAppend.entries.map((entry) => entry.content)).toEqual(["first", "new from code"]);
    expect(afterAppend.newCount).toBe(1);
    await markRead({ id: handoff.id, asClient: "chat" });
    expect((await getHandoff({ id: handoff.id })).newCount).toBe(0);
    await closeHandoff({ id: handoff.id });
    const closed = await getHandoff({ id: handoff.id });
    expect([closed.handoff.status, closed.entries.length]).toEqual(["completed", 0]);
  });

  it("see an append committed by another process in the next read", async () => {
    const { handoff } = await createHandoff({ title: "changes elsewhere", content: "first" });
    const other = await createHandoff({ title: "other", content: "first" });
    expect((await getHandoff({ id: handoff.id })).entries).toHaveLength(1);
    const { stdout } = await run(process.execPath, ["--import", "tsx", worker, handoff.id, other.handoff.id, "1", "code"], { env: process.env, timeout: 60_000 });
    expect(stdout.trim()).toMatch(/^ok /);
    expect((await getHandoff({ id: handoff.id })).entries.map((entry) => entry.content)).toEqual(["first", "code 0"]);
  });

  it("stand through writes to other threads, from this process or another", async () => {
    const { handoff } = await createHandoff({ title: "read while others write", content: "first" });
    const other = await createHandoff({ title: "busy", content: "first" });
    const first = await getHandoff({ id: handoff.id });
    await addEntry({ id: other.handoff.id, type: "progress", content: "elsewhere", asClient: "code" });
    await markRead({ id: other.handoff.id, asClient: "chat" });
    expect(await getHandoff({ id: handoff.id })).toBe(first);
    const { stdout } = await run(process.execPath, ["--import", "tsx", worker, other.handoff.id, other.handoff.id, "2", "code"], { env: process.env, timeout: 60_000 });
    expect(stdout.trim()).toMatch(/^ok /);
    expect(await getHandoff({ id: handoff.id })).toBe(first);
    // The other side's read of this thread moves its row: read again, and an equal answer.
    await markRead({ id: handoff.id, asClient: "code" });
    const afterMark = await getHandoff({ id: handoff.id });
    expect(afterMark).not.toBe(first);
    expect(afterMark.entries).toEqual(first.entries);
  });

  it("do not keep what a write transaction read before it rolled back", async () => {
    const { handoff } = await createHandoff({ title: "rolled back", content: "first" });
    await expect(
      write(async () => {
        await addEntry({ id: handoff.id, type: "progress", content: "never committed", asClient: "code" });
        expect((await getHandoff({ id: handoff.id })).entries).toHaveLength(2);
        throw new Error("roll it back");
      }),
    ).rejects.toThrow("roll it back");
    expect((await getHandoff({ id: handoff.id })).entries.map((entry) => entry.content)).toEqual(["first"]);
    // A read remembered before the write is answered again inside it only while the thread is unchanged there.
    const before = await getHandoff({ id: handoff.id });
    await expect(
      write(async () => {
        expect(await getHandoff({ id: handoff.id })).toBe(before);
        await addEntry({ id: handoff.id, type: "progress", content: "never committed either", asClient: "code" });
        expect((await getHandoff({ id: handoff.id })).entries).toHaveLength(2);
        throw new Error("roll it back");
      }),
    ).rejects.toThrow("roll it back");
    expect(await getHandoff({ id: handoff.id })).toBe(before);
  });

  it("answer, after any run of appends, reads, mark-reads and closes, what a read that is never remembered answers", async () => {
    // A paged read (after_seq=0) is never remembered; for a thread within the budget it carries the
    // same entries, counts and cursors as the whole-thread read.
    const side = fc.constantFrom<"chat" | "code">("chat", "code");
    const operation = fc.oneof(
      { weight: 4, arbitrary: fc.record({ kind: fc.constant("append" as const), thread: fc.nat(2), side, content: fc.string({ maxLength: 40 }).map((text) => `note ${text}`) }) },
      { weight: 4, arbitrary: fc.record({ kind: fc.constant("read" as const), thread: fc.nat(2), side }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant("mark" as const), thread: fc.nat(2), side }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant("close" as const), thread: fc.nat(2) }) },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 20 }), async (operations) => {
        const threads = [];
        for (let index = 0; index < 3; index++) threads.push((await createHandoff({ title: `property ${index}`, content: "first" })).handoff.id);
        const check = async (id: string, asClient: "chat" | "code") => {
          const whole = await getHandoff({ id, asClient });
          const paged = await getHandoff({ id, asClient, afterSeq: 0 });
          expect(whole).toEqual(paged);
        };
        for (const step of operations) {
          const id = threads[step.thread];
          if (step.kind === "append") await addEntry({ id, type: "progress", content: step.content, asClient: step.side }).catch((error: Error) => expect(error.message).toMatch(/completed/));
          else if (step.kind === "mark") await markRead({ id, asClient: step.side });
          else if (step.kind === "close") await closeHandoff({ id }).catch((error: Error) => expect(error.message).toMatch(/already|completed/));
          else await check(id, step.side);
        }
        for (const id of threads) for (const reader of ["chat", "code"] as const) await check(id, reader);
      }),
      { numRuns: 25 },
    );
  }, 120_000);

  it("see the stored-secrets sweep's rewrite of an entry, run by another process", async () => {
    const secret = secretPartOf(SECRET_SAMPLES[0]);
    process.env.BATON_SECRETS = "off";
    try {
      const { handoff } = await createHandoff({ title: "swept", content: `the key is ${secret}` });
      expect((await getHandoff({ id: handoff.id })).entries[0].content).toContain(secret);
      const sweep = await runBaton(["secrets", "scan", "--redact"]);
      expect(sweep.code, sweep.stderr).toBe(0);
      const content = (await getHandoff({ id: handoff.id })).entries[0].content;
      expect(content).not.toContain(secret);
      expect(content).toContain("[redacted:");
    } finally {
      delete process.env.BATON_SECRETS;
    }
  });

  it("over stdio: get_handoff answers the same again, and at once the entry another server appended", async () => {
    const { handoff } = await createHandoff({ title: "two servers", content: "first" });
    const reader = await connectStdioClient();
    const writer = await connectStdioClient({ args: ["--as", "code"] });
    try {
      const get = async () => (await reader.client.callTool({ name: "get_handoff", arguments: { id: handoff.id } })) as unknown as { structuredContent: { entries: { content: string }[] }; content: { text: string }[] };
      const first = await get();
      const again = await get();
      expect(again.content).toEqual(first.content);
      expect(again.structuredContent).toEqual(first.structuredContent);
      // The text block is the thread as a transcript.
      expect(again.content[0].text).toMatch(/^# Handoff hof_[\w-]+\n[^]*\ntitle: "two servers"\n[^]*\n\[q-[0-9a-f]{12}\] #1 context from chat, \S+, seq \d+\nfirst\n/);
      for (let index = 0; index < 5; index++) {
        await writer.client.callTool({ name: "add_to_handoff", arguments: { id: handoff.id, type: "progress", content: `appended ${index}` } });
        const read = await get();
        expect(read.structuredContent.entries.map((entry) => entry.content).at(-1)).toBe(`appended ${index}`);
        expect(read.content[0].text).toMatch(new RegExp(`BEGIN QUOTED ENTRIES of hof_[\\w-]+, new to \\w+ \\[(q-[0-9a-f]{12})\\] -----\\n[^]*\\[\\1\\] #${index + 2} progress from code, \\S+, seq \\d+\\nappended ${index}\\n`));
      }
    } finally {
      await Promise.all([reader.client.close(), writer.client.close()]);
    }
  });
});
