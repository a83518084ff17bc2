import "server-only";
import { placeholders, type Tx } from "../database";
import { Invalid } from "../errors";
import { entryRange, loadHandoff } from "../handoffs/store";
import { toEntryView, toHandoffView } from "../handoffs/views";
import { formatNamed } from "./detect-format";
import { instructionEntryOf, progressPercentOf } from "./handoff-json";
import { MAX_LIST_ITEMS } from "./schema-helpers";
import { latestUnchangedImport, openQuestions } from "./snapshot";
import { sourceOf, toSourceRecord } from "./sources";
import { EXCERPT_HEAD_CHARS, leastItemBytes, MAX_SUMMARY_BYTES, summaryParts } from "./summarize-handoff";
import type { HandoffSnapshot, SnapshotEntry } from "./types";

/**
 * A thread has no cap on its entries, an export has one on its bytes: a snapshot holds every
 * entry's outline (seq, number, type, side, answers, time) but only the text its format's export
 * can use, so reading one takes memory bounded by the export, not by the thread (4,000 entries
 * of 64 KiB once took 450 MB per export, and more with every entry). What each format reads, and
 * why its document is the one it would make of every entry's whole text:
 *
 * - bundle: the summary quotes entries only through excerpts of at most EXCERPT_BYTES, so each
 *   entry it can reach is read trimmed, and only its start when longer (summarize-handoff.ts,
 *   EXCERPT_HEAD_CHARS), with the whole text's bytes for the excerpt's note. It reaches the
 *   latest decision, then the open questions and then the rest newest first, each costing at
 *   least leastItemBytes of at most MAX_SUMMARY_BYTES: entries past that are never quoted.
 * - handoff.json: each list keeps its newest MAX_LIST_ITEMS items, so whole texts of those
 *   only. A thread mapped from its entries (fromEntries): the open questions (blockers), the
 *   context entries and earlier decisions (facts), the tasks back to the MAX_LIST_ITEMS-th newest
 *   that is not the instruction (next_steps leaves those out; the ones in between that are get
 *   the instruction's text, which is theirs), the instruction's entry and the last step. An
 *   imported handoff.json with entries added since (foldInto): of those, the tasks, the
 *   questions, the context entries and decisions, and the last step. Either way the newest
 *   progress entry that gives a percentage (the newer ones give none, and neither does an empty
 *   text). Older items only ever come before the newest MAX_LIST_ITEMS of their list, which are
 *   all an export keeps.
 * - handoff.yaml: the last entry (`now`) and the newest done entry (`outcome`).
 *
 * Everything else an export reads of an entry is its outline, such as which questions are open.
 */

/** Rows of whole texts read at a time (at most 64 KiB each), so a page stays small. */
const TEXT_PAGE_ROWS = 16;
/** Rows of excerpt heads read at a time (at most EXCERPT_HEAD_CHARS each). */
const HEAD_PAGE_ROWS = 256;

let trimmedSpacesFound: string | undefined;

/**
 * Every code point String.prototype.trim removes, for SQL's ltrim/rtrim (which take a set of
 * characters on both engines), so a text trimmed in SQL is the one JavaScript trims. Taken from
 * the engine itself; all of them are in the Basic Multilingual Plane (tests/export-memory.test.ts
 * checks the others). Found on the first bundle export, not when the module loads: the 65,536
 * checks take about 9 ms, which every `baton mcp` start paid.
 */
export function trimmedSpaces(): string {
  trimmedSpacesFound ??= Array.from({ length: 0x10000 }, (_, code) => String.fromCharCode(code))
    .filter((char) => char.trim() === "")
    .join("");
  return trimmedSpacesFound;
}

type Text = { content: string; trimmedBytes?: number };

/** The seq of the thread's entry #`number`, where an export asked by number is cut; Invalid naming the numbers it has. */
export async function seqOfEntryNumber(tx: Tx, id: string, number: number): Promise<number> {
  await loadHandoff(tx, id);
  const row = await tx.get<{ seq: number }>("SELECT seq FROM handoff_entries WHERE handoff_id = ? AND number = ?", [id, number]);
  if (row) return row.seq;
  const { first, last } = (await tx.get<{ first: number | null; last: number | null }>("SELECT MIN(number) AS first, MAX(number) AS last FROM handoff_entries WHERE handoff_id = ?", [id]))!;
  const range = first !== null ? `its entries are #${first}–#${last}` : "it has no entries";
  throw new Invalid(`handoff ${id} has no entry #${number}; ${range}`, { cutAtEntry: [`must be the number of one of the thread's entries; ${range}`] });
}

/**
 * The thread cut at `cut` (default: its last entry) with its source, holding what an export as
 * `formatName` uses of its entries. A cut must be the seq of one of the thread's entries, so
 * "cut at #N" always names something that was written.
 */
export async function loadSnapshot(tx: Tx, id: string, cut: number | null, formatName: string): Promise<HandoffSnapshot> {
  const handoff = toHandoffView(await loadHandoff(tx, id));
  if (cut !== null && !(await tx.get("SELECT seq FROM handoff_entries WHERE handoff_id = ? AND seq = ?", [id, cut]))) {
    const { first, last } = await entryRange(tx, id, {});
    const range = first !== null ? `its entries have seqs ${first}–${last}` : "it has no entries";
    throw new Invalid(`handoff ${id} has no entry with seq ${cut}; ${range}`, { cut: [`must be the seq of one of the thread's entries; ${range}`] });
  }
  const format = formatNamed(formatName);
  const outlines = await outlinesOf(tx, id, cut);
  const source = await sourceOf(tx, id);
  const outline: HandoffSnapshot = {
    handoff,
    format,
    entries: outlines,
    cut: cut ?? outlines.at(-1)?.seq ?? null,
    source: source ? toSourceRecord(source) : null,
    reuseSourceDocument: true,
  };
  const texts = await textsFor(tx, outline);
  return { ...outline, entries: outlines.map((entry) => ({ ...entry, ...texts.get(entry.seq) })) };
}

/** Every entry up to `cut` (all when null), in seq order, with an empty content. */
async function outlinesOf(tx: Tx, id: string, cut: number | null): Promise<SnapshotEntry[]> {
  const rows = await tx.rows<[number, string, string, string, number, number | null]>(
    `SELECT seq, from_client, type, created_at, number, answers FROM handoff_entries WHERE handoff_id = ?${cut === null ? "" : " AND seq <= ?"} ORDER BY seq`,
    cut === null ? [id] : [id, cut],
  );
  return rows.map(([seq, fromClient, type, createdAt, number, answers]) =>
    toEntryView({ seq, handoff_id: id, from_client: fromClient, type, content: "", created_at: createdAt, number, answers }),
  );
}

const newestOf = (entries: SnapshotEntry[], count: number) => entries.slice(-count);
const isLastStep = (entry: SnapshotEntry) => entry.type === "progress" || entry.type === "done";

/** The texts an export of the outlined snapshot uses, by seq (see the comment at the top). */
async function textsFor(tx: Tx, outline: HandoffSnapshot): Promise<Map<number, Text>> {
  const { handoff, format, entries } = outline;
  const last = entries.at(-1);
  if (!last) return new Map();
  if (format === "bundle") return excerptTextsFor(tx, handoff.id, entries);
  if (format === "handoff_yaml") return wholeTexts(tx, handoff.id, [last, entries.findLast((entry) => entry.type === "done")]);
  const folded = latestUnchangedImport(outline, "handoff_json");
  const texts = folded ? await foldedTexts(tx, handoff.id, folded.added) : await mappedTexts(tx, handoff.id, entries, handoff.title);
  const percentSource = await newestProgressWithPercent(tx, handoff.id, last.seq);
  if (percentSource) texts.set(percentSource.seq, { content: percentSource.content });
  return texts;
}

/** An imported handoff.json's entries added since (foldInto): the newest of each list they join, and the last step. */
function foldedTexts(tx: Tx, id: string, added: SnapshotEntry[]): Promise<Map<number, Text>> {
  return wholeTexts(tx, id, [
    added.findLast(isLastStep),
    ...newestOf(added.filter((entry) => entry.type === "task"), MAX_LIST_ITEMS),
    ...newestOf(added.filter((entry) => entry.type === "question"), MAX_LIST_ITEMS),
    ...newestOf(added.filter((entry) => entry.type === "context" || entry.type === "decision"), MAX_LIST_ITEMS),
  ]);
}

/** A thread mapped to a handoff.json (fromEntries): its instruction, its last step, and the newest of each list. */
async function mappedTexts(tx: Tx, id: string, entries: SnapshotEntry[], title: string): Promise<Map<number, Text>> {
  const latestDecision = entries.findLast((entry) => entry.type === "decision");
  const instructionEntry = instructionEntryOf(entries);
  const texts = await wholeTexts(tx, id, [
    instructionEntry,
    entries.findLast(isLastStep),
    ...newestOf(openQuestions(entries), MAX_LIST_ITEMS),
    ...newestOf(entries.filter((entry) => entry.type === "context" || (entry.type === "decision" && entry !== latestDecision)), MAX_LIST_ITEMS),
  ]);
  const instruction = instructionEntry ? texts.get(instructionEntry.seq)!.content : title;
  for (const [seq, content] of await listedTasks(tx, id, entries.at(-1)!.seq, instruction)) texts.set(seq, { content });
  return texts;
}

/** Whole texts of the given entries (absent ones skipped), read a page at a time. */
async function wholeTexts(tx: Tx, id: string, chosen: (SnapshotEntry | undefined | null)[]): Promise<Map<number, Text>> {
  const seqs = [...new Set(chosen.flatMap((entry) => (entry ? [entry.seq] : [])))];
  const texts = new Map<number, Text>();
  for (let start = 0; start < seqs.length; start += TEXT_PAGE_ROWS) {
    const page = seqs.slice(start, start + TEXT_PAGE_ROWS);
    const rows = await tx.rows<[number, string]>(`SELECT seq, content FROM handoff_entries WHERE handoff_id = ? AND seq IN (${placeholders(page.length)})`, [id, ...page]);
    for (const [seq, content] of rows) texts.set(seq, { content });
  }
  return texts;
}

/**
 * The tasks a handoff.json's next steps can hold: back to the MAX_LIST_ITEMS-th newest whose text
 * is not the instruction. Those that are come back as the instruction itself (one string, however
 * many copies the thread has).
 */
async function listedTasks(tx: Tx, id: string, through: number, instruction: string): Promise<[number, string][]> {
  const oldest = await tx.get<{ seq: number }>(
    "SELECT seq FROM handoff_entries WHERE handoff_id = ? AND type = 'task' AND seq <= ? AND content <> ? ORDER BY seq DESC LIMIT 1 OFFSET ?",
    [id, through, instruction, MAX_LIST_ITEMS - 1],
  );
  const rows = await tx.rows<[number, string | null]>(
    "SELECT seq, CASE WHEN content = ? THEN NULL ELSE content END FROM handoff_entries WHERE handoff_id = ? AND type = 'task' AND seq >= ? AND seq <= ?",
    [instruction, id, oldest?.seq ?? 0, through],
  );
  return rows.map(([seq, content]) => [seq, content ?? instruction]);
}

/** The newest progress entry up to `through` whose text gives a percentage (progressPercentOf needs a `%`). */
async function newestProgressWithPercent(tx: Tx, id: string, through: number): Promise<{ seq: number; content: string } | null> {
  for (let upTo = through; ; ) {
    const page = await tx.rows<[number, string]>(
      "SELECT seq, content FROM handoff_entries WHERE handoff_id = ? AND type = 'progress' AND seq <= ? AND content LIKE '%!%%' ESCAPE '!' ORDER BY seq DESC LIMIT ?",
      [id, upTo, TEXT_PAGE_ROWS],
    );
    const found = page.find(([, content]) => progressPercentOf(content) !== null);
    if (found) return { seq: found[0], content: found[1] };
    if (page.length < TEXT_PAGE_ROWS) return null;
    upTo = page.at(-1)![0] - 1;
  }
}

/**
 * The texts a summary can quote: the latest decision's, then the open questions' and the other
 * entries', newest first, while the least the newer ones cost still fits in a summary.
 */
async function excerptTextsFor(tx: Tx, id: string, entries: SnapshotEntry[]): Promise<Map<number, Text>> {
  const { latestDecision, openQuestions: questions, rest } = summaryParts(entries);
  const texts = await excerptTexts(tx, id, latestDecision ? [latestDecision.seq] : []);
  for (const newestFirst of [questions.toReversed(), rest.toReversed()]) {
    let room = MAX_SUMMARY_BYTES;
    for (let start = 0; room >= 0 && start < newestFirst.length; start += HEAD_PAGE_ROWS) {
      const page = newestFirst.slice(start, start + HEAD_PAGE_ROWS).map((entry) => entry.seq);
      const read = await excerptTexts(tx, id, page);
      for (const seq of page) {
        if (room < 0) break;
        const text = read.get(seq)!;
        texts.set(seq, text);
        room -= leastItemBytes(text.trimmedBytes ?? Buffer.byteLength(text.content, "utf8"));
      }
    }
  }
  return texts;
}

/**
 * Entries' texts trimmed as String.prototype.trim does; past EXCERPT_HEAD_CHARS code points, that
 * start and the whole's bytes. SQL counts code points here on SQLite and on a PostgreSQL database
 * encoded UTF8 (one encoded SQL_ASCII would count and trim bytes).
 */
async function excerptTexts(tx: Tx, id: string, seqs: number[]): Promise<Map<number, Text>> {
  if (seqs.length === 0) return new Map();
  const rows = await tx.rows<[number, number, number, string]>(
    `SELECT seq, length(trimmed), octet_length(trimmed), substr(trimmed, 1, ?) FROM (SELECT seq, ltrim(rtrim(content, ?), ?) AS trimmed FROM handoff_entries WHERE handoff_id = ? AND seq IN (${placeholders(seqs.length)})) AS trimmed_entries`,
    [EXCERPT_HEAD_CHARS, trimmedSpaces(), trimmedSpaces(), id, ...seqs],
  );
  return new Map(rows.map(([seq, chars, bytes, head]) => [seq, Number(chars) > EXCERPT_HEAD_CHARS ? { content: head, trimmedBytes: Number(bytes) } : { content: head }]));
}
