import { describe, expect, it } from "vitest";
import { MAX_INT4, read, storedDate, write } from "../lib/database";
import { EXAMPLE_DOCUMENTS, importDocument, type SourceFormat } from "../lib/formats";
import { renderSnapshot } from "../lib/formats/export-handoff";
import { loadSnapshot, trimmedSpaces } from "../lib/formats/load-snapshot";
import { createHandoff, type EntryType } from "../lib/handoffs";
import { entriesOf } from "../lib/handoffs/store";
import { runBaton } from "./support/baton-command";

/**
 * An export reads what it can write, not the whole thread (lib/formats/load-snapshot.ts): a thread
 * of thousands of 64 KiB entries once took its whole text into memory for a 64 KiB bundle, and a
 * few exports at once ran the server out of heap. Its documents stay the ones the whole thread
 * gives: each is compared with the document rendered from every entry's whole text.
 */

type SeededEntry = { type: EntryType; content: string; fromClient?: "chat" | "code"; answers?: number };

/** Appends `entries` to thread `id` straight into its table, in one transaction: as many and as large as a test needs, quickly. */
async function seedEntries(id: string, entries: SeededEntry[]): Promise<void> {
  await write(async (tx) => {
    const start = (await tx.get<{ last: number }>("SELECT MAX(number) AS last FROM handoff_entries WHERE handoff_id = ?", [id]))!.last;
    const createdAt = storedDate();
    for (const [index, entry] of entries.entries()) {
      await tx.run("INSERT INTO handoff_entries (handoff_id, number, from_client, type, content, created_at, answers) VALUES (?, ?, ?, ?, ?, ?, ?)", [
        id,
        start + index + 1,
        entry.fromClient ?? (index % 2 ? "code" : "chat"),
        entry.type,
        entry.content,
        createdAt,
        entry.answers ?? null,
      ]);
    }
    const { last } = (await tx.get<{ last: number }>("SELECT MAX(seq) AS last FROM handoff_entries WHERE handoff_id = ?", [id]))!;
    await tx.run("UPDATE handoffs SET last_number = ?, chat_last_seen = ?, code_last_seen = ? WHERE id = ?", [start + entries.length, last, last, id]);
  });
}

/** A thread of `entries` after an opening one; its id. */
async function seededThread(title: string, entries: SeededEntry[]): Promise<string> {
  const { handoff } = await createHandoff({ title, content: "Opening context" });
  await seedEntries(handoff.id, entries);
  return handoff.id;
}

/** A small deterministic generator (mulberry32), so a failing thread can be made again. */
function randomFrom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

const TYPES: EntryType[] = ["task", "question", "context", "decision", "progress", "done"];
// Clusters an excerpt or a start read in SQL must not split: combining marks, ZWJ and flag sequences, CJK, astral.
const CLUSTERS = ["e\u0301\u0302\u0303", "👩‍👩‍👧‍👦", "🇯🇵🇫🇷", "漢字", "😀", "ñ", " ", "\n", '"quoted"\\'];
const SPACES = [" ", "\n", "\t", "\u00a0", "\u3000", "\ufeff", "\u2028"];

/** Text of `chars` or so made of `pieces`, starting with its index so entries differ. */
function textOf(random: () => number, index: number, chars: number, pieces: string[]): string {
  let text = `Entry ${index}: `;
  while (text.length < chars) text += pieces[Math.floor(random() * pieces.length)];
  return text;
}

/**
 * Entries of every shape the bounded reading has to get right: long ones around the start an
 * excerpt reads (EXCERPT_HEAD_CHARS, 4,097 code points) with clusters across it, whitespace of
 * every kind around them (some longer than that start), percentages past that start, tasks that
 * repeat the newest one (the instruction), questions answered and open, each list past 200.
 */
function variedEntries(seed: number, count: number): SeededEntry[] {
  const random = randomFrom(seed);
  const entries: SeededEntry[] = [];
  const questions: number[] = [];
  for (let index = 0; index < count; index++) {
    const type = TYPES[Math.floor(random() * TYPES.length)];
    const shape = random();
    let content: string;
    if (shape < 0.3) content = `Short ${type} ${index}`;
    else if (shape < 0.5) content = textOf(random, index, 4080 + Math.floor(random() * 40), [...CLUSTERS, "word "]);
    else if (shape < 0.65) content = textOf(random, index, 5000 + Math.floor(random() * 15_000), ["lorem ", "ipsum ", "é", ...CLUSTERS]);
    else if (shape < 0.75) content = `${textOf(random, index, 6000, ["x", "y "])} now at ${Math.floor(random() * 200)}% done`;
    else if (shape < 0.85) content = "Repeat the migration on staging";
    else content = textOf(random, index, 200 + Math.floor(random() * 3000), ["abc ", "中文 ", "e\u0301 "]);
    const pad = () => Array.from({ length: random() < 0.2 ? 5000 : Math.floor(random() * 4) }, () => SPACES[Math.floor(random() * SPACES.length)]).join("");
    const padded = `${pad()}${content}${pad()}`;
    if (random() < 0.4 && Buffer.byteLength(padded, "utf8") <= 65_536) content = padded;
    const number = entries.length + 2;
    const answers = random() < 0.3 && questions.length > 0 ? questions[Math.floor(random() * questions.length)] : undefined;
    if (type === "question") questions.push(number);
    entries.push({ type, content, answers });
  }
  return entries;
}

/**
 * `count` short entries: questions, tasks, context entries and progress entries each answering the
 * question before it (so half the questions stay open), with 250 decisions first or last.
 */
function shortEntries(count: number, decisions: "first" | "last"): SeededEntry[] {
  const cycle: EntryType[] = ["question", "task", "context", "question", "progress"];
  const decided = Array.from({ length: 250 }, (_, index): SeededEntry => ({ type: "decision", content: `Decision ${index}: keep the cache` }));
  const others = Array.from({ length: count - decided.length }, (_, index): SeededEntry => ({ type: cycle[index % cycle.length], content: `Short entry ${index}: which cache?` }));
  const entries = decisions === "first" ? [...decided, ...others] : [...others, ...decided];
  // Numbers start at 2 after a thread's opening entry: a progress entry answers the question just before it.
  return entries.map((entry, index) => (entry.type === "progress" && entries[index - 1]?.type === "question" ? { ...entry, answers: index + 1 } : entry));
}

const FORMATS: SourceFormat[] = ["bundle", "handoff_json", "handoff_yaml"];

/**
 * Each format's document of thread `id` cut at each of `cuts`, as loadSnapshot reads it and as
 * the whole thread gives it (also as a close archives it: the source document not reused). A
 * document the thread is too large for fails alike both ways.
 */
async function expectSameDocuments(id: string, cuts: (number | null)[]): Promise<void> {
  for (const cut of cuts) {
    for (const format of FORMATS) {
      // Only a bundle reads it: a close archives the thread, never its imported bundle.
      for (const reuseSourceDocument of format === "bundle" ? [true, false] : [true]) {
        const rendered = await read(async (tx) => {
          const snapshot = { ...(await loadSnapshot(tx, id, cut, format)), reuseSourceDocument };
          const whole = await entriesOf(tx, id, cut === null ? {} : { lt: cut + 1 }, "asc", MAX_INT4);
          const attempt = (entries: typeof whole) => {
            try {
              return renderSnapshot({ ...snapshot, entries }).text;
            } catch (error) {
              return `refused: ${String(error)}`;
            }
          };
          return { bounded: attempt(snapshot.entries), whole: attempt(whole) };
        });
        expect(rendered.bounded, `${format} cut at ${cut}`).toBe(rendered.whole);
      }
    }
  }
}

/** Seqs of thread `id`'s entries. */
const seqsOf = (id: string) => read((tx) => tx.rows<[number]>("SELECT seq FROM handoff_entries WHERE handoff_id = ? ORDER BY seq", [id])).then((rows) => rows.map(([seq]) => seq));

describe("an export's document is the one the whole thread gives", () => {
  it.each([1, 2])("for a thread of 1,000 entries of every shape (seed %i), cut at its end and in its middle", async (seed) => {
    const id = await seededThread(`Varied thread ${seed}`, variedEntries(seed, 1000));
    const seqs = await seqsOf(id);
    await expectSameDocuments(id, [null, seqs[Math.floor(seqs.length / 2)]]);
  }, 60_000);

  it("for 3,000 short entries, more than a summary can reach and more than each handoff.json list holds", async () => {
    for (const decisions of ["first", "last"] as const) await expectSameDocuments(await seededThread("Many short entries", shortEntries(3000, decisions)), [null]);
  }, 60_000);

  it("for a handoff.json whose tasks repeat its instruction and whose percentage is in an older progress entry, far into its text", async () => {
    const instruction = "Ship the cache layer";
    const tasks = Array.from({ length: 300 }, (_, index): SeededEntry => ({ type: "task", content: index % 3 ? instruction : `Step ${index}: ${"s".repeat(2000)}` }));
    const progress = [`${"x".repeat(6000)} now 40% done`, `${"x".repeat(6000)} now 150% over`, "No percentage here"].map((content): SeededEntry => ({ type: "progress", content }));
    // Its instruction is the latest decision's text; without one, the newest task's.
    const decided = await seededThread("Decided", [...progress.slice(0, 1), ...tasks, ...progress.slice(1), { type: "decision", content: instruction }]);
    const undecided = await seededThread("Undecided", [...progress.slice(0, 1), ...tasks, ...progress.slice(1), { type: "task", content: instruction }]);
    for (const id of [decided, undecided]) await expectSameDocuments(id, [null]);
  }, 60_000);

  it("for imported handoff.json and handoff.yaml threads with hundreds of entries added since", async () => {
    const added = [variedEntries(4, 1000), variedEntries(5, 1000), shortEntries(3000, "last")];
    for (const [index, [format, text]] of [["json", EXAMPLE_DOCUMENTS.handoff_json.text], ["yaml", EXAMPLE_DOCUMENTS.handoff_yaml.text], ["json", EXAMPLE_DOCUMENTS.handoff_json.text]].entries()) {
      const imported = await importDocument({ text, fileName: `handoff.${format}` });
      const importedThrough = (await seqsOf(imported.handoff.id)).at(-1)!;
      await seedEntries(imported.handoff.id, added[index]);
      await expectSameDocuments(imported.handoff.id, [null, importedThrough]);
    }
  }, 60_000);

  it("trims in SQL exactly what JavaScript trims: no code point past the Basic Multilingual Plane is trimmed", () => {
    expect(trimmedSpaces()).toContain("\u3000");
    let astralTrimmed = 0;
    for (let code = 0x10000; code <= 0x10ffff; code++) if (String.fromCodePoint(code).trim() === "") astralTrimmed++;
    expect(astralTrimmed).toBe(0);
  });
});

/** `baton export <id> --format <format>` with V8's old generation capped at `heapMegabytes`. */
const exportWithHeap = (id: string, format: string, heapMegabytes: number) =>
  runBaton(["export", id, "--format", format], { env: { NODE_OPTIONS: `--max-old-space-size=${heapMegabytes}` } });

describe("baton export reads a thread in memory bounded by what it writes", () => {
  it("exports 2,000 entries of 64 KiB (128 MB of text) in every format with a 96 MB heap", async () => {
    const entries = Array.from({ length: 2000 }, (_, index): SeededEntry => ({ type: TYPES[index % TYPES.length], content: `Entry ${index} ${"x".repeat(65_000)}` }));
    const id = await seededThread("A thread larger than the heap", entries);
    for (const format of ["bundle", "json", "yaml"]) {
      const exported = await exportWithHeap(id, format, 96);
      // Reading every entry whole, the export ran out of heap here ("JavaScript heap out of memory").
      expect(exported.code, `${format}: ${exported.stderr.slice(0, 2000)}`).toBe(0);
      expect(exported.stdout).toContain(format === "yaml" ? "outcome: Entry 1997 x" : "Entry 1995 x");
    }
  }, 60_000);
});
