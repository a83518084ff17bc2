import type { EntryType } from "../handoffs/schemas";
import type { EntryView, HandoffView } from "../handoffs/views";
import type { SnapshotEntry } from "./types";
import { MAX_CONTENT_BYTES } from "../handoffs/schemas";
import { jsonTextBytes } from "../json-bytes";
import { startOf } from "./schema-helpers";
import { openQuestions as openQuestionsOf } from "./snapshot";

/** Most a summary may take: it becomes an entry of the thread that imports it (64 KiB). */
export const MAX_SUMMARY_BYTES = MAX_CONTENT_BYTES;
/** Longest excerpt of one entry, so one long entry cannot crowd out the others. */
const EXCERPT_BYTES = 4096;
/**
 * Code points of an entry's trimmed text that give the same excerpt as the whole text: a code
 * point is at least one byte, so this start costs more than any excerpt may, and clip() stops
 * within it exactly where it stops within the whole text (a grapheme boundary depends only on
 * the text before it and the code point after it, so the start's boundaries are the whole's up
 * to its last cluster, which clip() only reaches once past the limit either way).
 */
export const EXCERPT_HEAD_CHARS = EXCERPT_BYTES + 1;

const GROUPS: { type: EntryType; heading: string }[] = [
  { type: "task", heading: "Tasks" },
  { type: "progress", heading: "Progress" },
  { type: "done", heading: "Done" },
  { type: "context", heading: "Context" },
  { type: "decision", heading: "Earlier decisions" },
  { type: "question", heading: "Answered questions" },
];

/** The longest start of `text` costing at most `maxBytes` in JSON, cut between characters (startOf). */
export const clip = (text: string, maxBytes: number): string => startOf(text, maxBytes, jsonTextBytes);

const excerptSuffix = (more: number) => `… (${more} more bytes in the source thread)`;

/** An entry's trimmed text, or at most maxBytes of it and a note of how many bytes it left out. */
function excerpt(entry: SnapshotEntry, maxBytes: number): string {
  // A start loadSnapshot read (EXCERPT_HEAD_CHARS, already trimmed at its start) is longer than
  // any excerpt: never whole, and the whole text's bytes come with it.
  const trimmed = entry.trimmedBytes === undefined ? entry.content.trim() : entry.content;
  if (entry.trimmedBytes === undefined && jsonTextBytes(trimmed) <= maxBytes) return trimmed;
  const kept = clip(trimmed, Math.max(0, maxBytes - jsonTextBytes(excerptSuffix(MAX_CONTENT_BYTES))));
  return `${kept}${excerptSuffix((entry.trimmedBytes ?? Buffer.byteLength(trimmed, "utf8")) - Buffer.byteLength(kept, "utf8"))}`;
}

/**
 * The fewest bytes an entry whose trimmed text has `trimmedBytes` costs in a summary (its item
 * and the line break after it): the item's frame with the shortest number and no side, then its
 * whole text (JSON text never has fewer bytes than UTF-8) or, when cut, at least the note.
 * loadSnapshot reads only the entries a summary can reach by these costs.
 */
export function leastItemBytes(trimmedBytes: number): number {
  return jsonTextBytes("- **#1** () ") + 2 + Math.min(trimmedBytes, jsonTextBytes(excerptSuffix(1)));
}

/** One entry as a list item; continuation lines indented so Markdown keeps them in the item. */
function item(entry: SnapshotEntry, maxBytes = EXCERPT_BYTES): string {
  const [first, ...rest] = excerpt(entry, maxBytes).split("\n");
  const answering = entry.answers === null ? "" : ` answering #${entry.answers}`;
  const lines = [`- **#${entry.number}** (${entry.fromClient}${answering}) ${first}`, ...rest.map((line) => (line ? `  ${line}` : ""))];
  return lines.join("\n");
}

function section(heading: string, items: string[]): string {
  return [`### ${heading}`, ...items].join("\n");
}

/** `#3`, `#3–#90`: the numbers of left-out entries, oldest to newest. */
function numberRange(entries: EntryView[]): string {
  const first = entries[0].number;
  const last = entries[entries.length - 1].number;
  return first === last ? `#${first}` : `#${first}–#${last}`;
}

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** Room kept for the note on what was trimmed (its numbers are not known until the end). */
const NOTE_RESERVE_BYTES = 512;

/**
 * The one budget rule of a summary. Entries compete for the bytes left after the heading, the
 * thread line, the section headings and the trim note: the latest decision always stays, then
 * open questions, then every other entry; within each, the newest are kept and the oldest are
 * the first left out (so what is left out is always the oldest run). The returned note says how
 * many entries and questions were left out and where the full thread was cut.
 */
function fitToBudget(
  fixedBytes: number,
  budgetBytes: number,
  latestDecision: SnapshotEntry | null,
  openQuestions: SnapshotEntry[],
  rest: SnapshotEntry[],
): { decisionItem: string | null; questions: Map<number, string>; others: Map<number, string>; leftOut: { questions: EntryView[]; others: EntryView[] } } {
  let room = budgetBytes - fixedBytes - NOTE_RESERVE_BYTES;
  const decisionItem = latestDecision ? item(latestDecision, Math.min(EXCERPT_BYTES, Math.max(0, room - 64))) : null;
  if (decisionItem) room -= jsonTextBytes(decisionItem) + 2;
  const keepNewest = (entries: SnapshotEntry[]) => {
    const kept = new Map<number, string>();
    let index = entries.length - 1;
    for (; index >= 0; index--) {
      const text = item(entries[index]);
      const cost = jsonTextBytes(text) + 2;
      if (cost > room) break;
      kept.set(entries[index].seq, text);
      room -= cost;
    }
    // Once one entry does not fit, every older one is left out too: the gap stays one run.
    return { kept, leftOut: entries.slice(0, index + 1) };
  };
  const questions = keepNewest(openQuestions);
  const others = questions.leftOut.length > 0 ? { kept: new Map<number, string>(), leftOut: rest } : keepNewest(rest);
  return { decisionItem, questions: questions.kept, others: others.kept, leftOut: { questions: questions.leftOut, others: others.leftOut } };
}

/** How a summary sorts entries: the latest decision, the questions still open, and the rest, each in seq order. */
export function summaryParts<Entry extends EntryView>(entries: Entry[]): { latestDecision: Entry | null; openQuestions: Entry[]; rest: Entry[] } {
  const latestDecision = entries.findLast((entry) => entry.type === "decision") ?? null;
  const openQuestions = openQuestionsOf(entries);
  const openSeqs = new Set(openQuestions.map((entry) => entry.seq));
  return { latestDecision, openQuestions, rest: entries.filter((entry) => entry !== latestDecision && !openSeqs.has(entry.seq)) };
}

/**
 * A readable summary of a thread cut, at most `budgetBytes` (counted as the bundle stores it, see
 * `jsonTextBytes`): the latest decision and the questions still open come first, then every other
 * entry grouped by type, each group in seq order. When the thread is larger than the budget the
 * oldest entries are left out and a note near the top says how many and where the thread was cut.
 * It depends only on the entries and the thread's title and id, never on the clock, so the same
 * cut always gives the same text.
 */
export function summarizeHandoff(
  handoff: Pick<HandoffView, "id" | "title" | "project">,
  entries: SnapshotEntry[],
  budgetBytes: number = MAX_SUMMARY_BYTES,
): string {
  const cut = entries.at(-1)?.number ?? 0;
  const { latestDecision, openQuestions, rest } = summaryParts(entries);
  const sides = [...new Set(entries.map((entry) => entry.fromClient))].sort().join(" and ");

  const head = [
    `## ${handoff.title.replace(/\n/g, " ")}`,
    `Thread \`${handoff.id}\`${handoff.project ? ` (project ${handoff.project})` : ""}, cut at #${cut}: ${plural(entries.length, "entry", "entries")} from ${
      sides || "nobody"
    }.`,
  ];
  const headings = ["Latest decision", "Open questions", ...GROUPS.map((group) => group.heading)];
  const fixedBytes = jsonTextBytes(head.join("\n\n")) + headings.reduce((sum, heading) => sum + jsonTextBytes(`### ${heading}\nNone yet.`) + 4, 0);
  const fitted = fitToBudget(fixedBytes, budgetBytes, latestDecision, openQuestions, rest);

  const parts = [...head];
  const { questions: leftQuestions, others: leftOthers } = fitted.leftOut;
  if (leftQuestions.length > 0 || leftOthers.length > 0) {
    const left = [
      ...(leftQuestions.length > 0 ? [`the ${plural(leftQuestions.length, "oldest open question", "oldest open questions")} (${numberRange(leftQuestions)})`] : []),
      ...(leftOthers.length > 0 ? [`${plural(leftOthers.length, "earlier entry", "earlier entries")} (${numberRange(leftOthers)})`] : []),
    ];
    parts.push(
      `_Trimmed to fit ${Math.floor(budgetBytes / 1024)} KiB: left out ${left.join(" and ")}. The full thread \`${handoff.id}\` was cut at #${cut}._`,
    );
  }
  parts.push(fitted.decisionItem ? section("Latest decision", [fitted.decisionItem]) : "### Latest decision\nNone yet.");
  parts.push(
    openQuestions.length === 0
      ? "### Open questions\nNone."
      : section("Open questions", [...fitted.questions.values()].reverse().concat(fitted.questions.size === 0 ? ["All left out (see above)."] : [])),
  );
  for (const group of GROUPS) {
    const members = rest.filter((entry) => entry.type === group.type && fitted.others.has(entry.seq));
    if (members.length > 0) parts.push(section(group.heading, members.map((entry) => fitted.others.get(entry.seq)!)));
  }
  return `${parts.join("\n\n")}\n`;
}
