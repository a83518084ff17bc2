import type { EntryType, EntryView, HandoffView } from "../handoffs";

/** Longest excerpt of one entry in a summary; the whole summary stays well under an entry's 64 KiB. */
const EXCERPT_CHARS = 2000;
const SUMMARY_BUDGET_CHARS = 56 * 1024;

const GROUPS: { type: EntryType; heading: string }[] = [
  { type: "task", heading: "Tasks" },
  { type: "progress", heading: "Progress" },
  { type: "done", heading: "Done" },
  { type: "context", heading: "Context" },
  { type: "decision", heading: "Earlier decisions" },
  { type: "question", heading: "Answered questions" },
];

function excerpt(text: string): string {
  const trimmed = text.trim();
  if (trimmed.length <= EXCERPT_CHARS) return trimmed;
  return `${trimmed.slice(0, EXCERPT_CHARS)}… (${trimmed.length - EXCERPT_CHARS} more characters in the source thread)`;
}

/** One entry as a list item; continuation lines indented so Markdown keeps them in the item. */
function item(entry: EntryView): string {
  const [first, ...rest] = excerpt(entry.content).split("\n");
  const lines = [`- **#${entry.seq}** (${entry.fromClient}) ${first}`, ...rest.map((line) => (line ? `  ${line}` : ""))];
  return lines.join("\n");
}

function section(heading: string, entries: EntryView[]): string {
  return [`### ${heading}`, ...entries.map(item)].join("\n");
}

/**
 * A readable summary of a thread cut: the latest decision and the questions still open come
 * first, then every other entry grouped by type, each group in seq order. It depends only on the
 * entries and the thread's title and id, never on the clock, so the same cut always gives the
 * same text.
 */
export function summarizeThread(handoff: Pick<HandoffView, "id" | "title" | "project">, entries: EntryView[]): string {
  const cut = entries.at(-1)?.seq ?? 0;
  const decisions = entries.filter((entry) => entry.type === "decision");
  const latestDecision = decisions.at(-1) ?? null;
  const decidedAt = latestDecision?.seq ?? 0;
  const openQuestions = entries.filter((entry) => entry.type === "question" && entry.seq > decidedAt);
  const shown = new Set<number>([...(latestDecision ? [latestDecision.seq] : []), ...openQuestions.map((entry) => entry.seq)]);
  const sides = [...new Set(entries.map((entry) => entry.fromClient))].sort().join(" and ");

  const parts = [
    `## ${handoff.title.replace(/\n/g, " ")}`,
    `Thread \`${handoff.id}\`${handoff.project ? ` (project ${handoff.project})` : ""}, cut at #${cut}: ${entries.length} ${
      entries.length === 1 ? "entry" : "entries"
    } from ${sides || "nobody"}.`,
    latestDecision ? section("Latest decision", [latestDecision]) : "### Latest decision\nNone yet.",
    openQuestions.length > 0 ? section("Open questions", openQuestions) : "### Open questions\nNone.",
  ];
  let used = parts.join("\n\n").length;
  let omitted = 0;
  for (const group of GROUPS) {
    const members = entries.filter((entry) => entry.type === group.type && !shown.has(entry.seq));
    if (members.length === 0) continue;
    const text = section(group.heading, members);
    if (used + text.length > SUMMARY_BUDGET_CHARS) {
      omitted += members.length;
      continue;
    }
    parts.push(text);
    used += text.length + 2;
  }
  if (omitted > 0) parts.push(`_${omitted} more entries are in the source thread \`${handoff.id}\` up to #${cut}._`);
  return `${parts.join("\n\n")}\n`;
}
