import fs from "node:fs";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { read } from "../lib/database";
import { blobPath, bundleFormat, closeHandoff, exportHandoff } from "../lib/formats";
import { MAX_BUNDLE_BYTES } from "../lib/formats/bundle";
import { summarizeHandoff } from "../lib/formats/summarize-handoff";
import { jsonTextBytes } from "../lib/json-bytes";
import { addEntry, createHandoff, getHandoff, type EntryType, type EntryView } from "../lib/handoffs";
import { ENTRY_COLUMNS } from "../lib/handoffs/append-statement";
import { toEntryView, type EntryRow } from "../lib/handoffs/views";
import { connectInProcessClient } from "./support/in-process-mcp";

const ENTRY_CHARS = 2000;
const ENTRIES = 500;
const OPEN_QUESTIONS = 100;

// Emoji (astral, ZWJ and flag sequences), CJK and letters with combining marks: every way a
// careless cut could split a character.
const PIECES = ["Auth 決定事項 ", "👩‍👩‍👧 ", "🇯🇵 ", "e\u0301te\u0301 ", "ñ\u0303\u0323 ", "中文字符 ", "😀 ", "plain words ", "한국어 "];
const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** Exactly `chars` UTF-16 units of mixed text for entry `n`, cut on a grapheme boundary. */
function mixedText(n: number, chars = ENTRY_CHARS): string {
  let text = `#${n} `;
  for (let index = n; text.length < chars + 20; index++) text += PIECES[index % PIECES.length];
  let out = "";
  for (const { segment } of segmenter.segment(text)) {
    if (out.length + segment.length > chars) break;
    out += segment;
  }
  return out.padEnd(chars, ".");
}

const TYPES: EntryType[] = ["task", "progress", "context", "done", "question", "decision"];

/**
 * A thread of 500 entries of 2,000 characters: 399 mixed ones (answered questions and earlier
 * decisions among them), the latest decision, then 100 open questions.
 */
async function bigThread(title: string): Promise<{ id: string; entries: EntryView[] }> {
  const { handoff } = await createHandoff({ title, content: mixedText(1), project: "budget" });
  for (let n = 2; n <= ENTRIES; n++) {
    const type = n <= ENTRIES - OPEN_QUESTIONS - 1 ? TYPES[n % TYPES.length] : n === ENTRIES - OPEN_QUESTIONS ? "decision" : "question";
    await addEntry({ id: handoff.id, type, content: mixedText(n), asClient: n % 2 ? "chat" : "code" });
  }
  // Straight from the table: get_handoff's answer is itself budgeted and would leave entries out.
  const rows = await read((tx) =>
    tx.all<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM handoff_entries WHERE handoff_id = ? ORDER BY seq ASC`, [handoff.id]),
  );
  expect(rows).toHaveLength(ENTRIES);
  return { id: handoff.id, entries: rows.map(toEntryView) };
}

/** No lone surrogate: a cut inside an emoji's surrogate pair would leave one. */
const wellFormed = (text: string) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);

/** Grapheme boundaries of a text (UTF-16 offsets). */
function boundaries(text: string): Set<number> {
  const set = new Set([text.length]);
  for (const { index } of segmenter.segment(text)) set.add(index);
  return set;
}

/**
 * Checks a kept bundle: within 64 KiB, valid by the bundle schema, the cut named, the trim note
 * consistent with what is listed, and every clipped excerpt a prefix of its entry ending on a
 * grapheme boundary.
 */
function checkKeptBundle(artifactId: string, id: string, entries: EntryView[]) {
  const bytes = fs.readFileSync(blobPath(artifactId));
  expect(bytes.length).toBeLessThanOrEqual(MAX_BUNDLE_BYTES);
  const text = bytes.toString("utf8");
  const bundle = bundleFormat.parse(text);
  expect(wellFormed(text)).toBe(true);
  expect(bundle.refs.threads[0]).toMatchObject({ thread_id: id, seq: entries.at(-1)!.seq });

  const summary = bundle.summary_markdown;
  const note = summary.match(/_Trimmed to fit (\d+) KiB: left out (.+)\. The full thread `(hof_[\w-]+)` was cut at #(\d+)\._/);
  expect(note, summary.slice(0, 600)).not.toBeNull();
  expect(note![3]).toBe(id);
  expect(Number(note![4])).toBe(entries.at(-1)!.number);
  const questionsLeft = Number(note![2].match(/the (\d+) oldest open questions?/)?.[1] ?? 0);
  const othersLeft = Number(note![2].match(/(\d+) earlier entr(?:y|ies)/)?.[1] ?? 0);
  const listed = [...summary.matchAll(/^- \*\*#(\d+)\*\* \((?:chat|code)\) (.*)$/gm)];
  expect(listed.length + questionsLeft + othersLeft).toBe(entries.length);
  // The 100 open questions come before the rest in priority: with 500 entries of this size some
  // of them must go, and then every other entry but the latest decision goes too.
  expect(questionsLeft).toBeGreaterThan(0);
  expect(othersLeft).toBe(entries.length - OPEN_QUESTIONS - 1);

  const byNumber = new Map(entries.map((entry) => [entry.number, entry.content]));
  const decision = entries[ENTRIES - OPEN_QUESTIONS - 1];
  expect(listed.map((match) => Number(match[1]))).toContain(decision.number);
  // The newest questions are kept, the oldest left out.
  const keptQuestions = listed.map((match) => Number(match[1])).filter((number) => number !== decision.number);
  expect(keptQuestions).toEqual(entries.slice(ENTRIES - keptQuestions.length).map((entry) => entry.number));
  for (const [, seq, shown] of listed) {
    const original = byNumber.get(Number(seq))!;
    const clipped = shown.match(/^(.*)… \(\d+ more bytes in the source thread\)$/s)?.[1];
    const kept = clipped ?? shown;
    expect(original.startsWith(kept), `#${seq}`).toBe(true);
    expect(boundaries(original).has(kept.length), `#${seq} cut inside a character`).toBe(true);
  }
}

describe("closing with a kept bundle never fails for size", () => {
  it("keeps a 500-entry thread with 100 open questions and multi-byte text through the domain function, rewriting a corrupted blob", async () => {
    const { id, entries } = await bigThread("Budget via the domain");
    // Same cut, same bytes: an export now names the blob the close will write. Corrupt it on disk.
    const exported = await exportHandoff({ id, format: "bundle" });
    fs.writeFileSync(blobPath(exported.artifactId!), "{\"tampered\":true}");

    const closed = await closeHandoff({ id, archive: true });
    expect(closed.handoff.status).toBe("completed");
    expect(closed.artifactId).toBe(exported.artifactId);
    checkKeptBundle(closed.artifactId!, id, entries);
    expect(fs.readFileSync(blobPath(closed.artifactId!), "utf8")).toBe(exported.text);
    expect((await getHandoff({ id })).entries).toEqual([]);
    const stored = await read(async (tx) => ({
      entries: (await tx.get<{ count: number }>("SELECT COUNT(*) AS count FROM handoff_entries WHERE handoff_id = ?", [id]))!.count,
      artifact: await tx.get("SELECT purpose, cut_seq, content FROM artifacts WHERE id = ?", [closed.artifactId!]),
    }));
    expect(stored).toEqual({ entries: 0, artifact: { purpose: "close_archive", cut_seq: entries.at(-1)!.seq, content: exported.text } });
  });

  describe("through MCP close_handoff {archive: true}", () => {
    let mcp: Awaited<ReturnType<typeof connectInProcessClient>>;
    beforeAll(async () => {
      mcp = await connectInProcessClient();
    });
    afterAll(async () => {
      await mcp?.close();
    });

    it("archives the same kind of thread and answers the bundle's artifact id", async () => {
      const { id, entries } = await bigThread("Budget via MCP");
      const result = await mcp.client.callTool({ name: "close_handoff", arguments: { id, archive: true } });
      const content = result.content as { type: string; text: string }[];
      expect(result.isError, content[0]?.text).toBeFalsy();
      const closed = result.structuredContent as { status: string; archive_artifact_id: string };
      expect(closed.status).toBe("completed");
      checkKeptBundle(closed.archive_artifact_id, id, entries);
      expect(mcp.logs).toEqual([]);
    });
  });
});

describe("the summary budget", () => {
  const handoff = { id: "hof_AAAAAAAAAAAAAAAAAAAAA", title: "Budget 🧪 テスト", project: null };
  const at = "2026-01-01T00:00:00.000Z";
  const entryOf = (seq: number, type: EntryType, content: string): EntryView => ({
    seq,
    number: seq,
    answers: null,
    handoffId: handoff.id,
    type,
    content,
    fromClient: seq % 2 ? "chat" : "code",
    createdAt: at,
  });

  it("keeps everything, with no trim note, when the thread fits", () => {
    const entries = [entryOf(1, "task", "Ship auth"), entryOf(2, "decision", "30 days"), entryOf(3, "question", "Remember-me?")];
    const summary = summarizeHandoff(handoff, entries, 16 * 1024);
    expect(summary).not.toContain("Trimmed");
    for (const entry of entries) expect(summary).toContain(entry.content);
  });

  it("stays within any budget for any text, never splitting a character, and says when it trimmed", () => {
    const content = fc.string({ unit: "grapheme", minLength: 1, maxLength: 3000 }).filter((text) => text.trim().length > 0);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...TYPES), content), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 16 * 1024, max: 64 * 1024 }),
        (drafts, budget) => {
          const entries = drafts.map(([type, text], index) => entryOf(index + 1, type, text));
          const summary = summarizeHandoff(handoff, entries, budget);
          expect(jsonTextBytes(summary)).toBeLessThanOrEqual(budget);
          expect(wellFormed(summary)).toBe(true);
          const listed = summary.match(/^- \*\*#\d+\*\*/gm)?.length ?? 0;
          expect(summary.includes("_Trimmed to fit")).toBe(listed < entries.length);
        },
      ),
      { numRuns: 40 },
    );
  });
});
