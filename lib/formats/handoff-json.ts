import { z } from "zod";
import { Invalid } from "../errors";
import { MAX_CONTENT_BYTES } from "../handoffs/schemas";
import { oneLine } from "../one-line";
import type { EntryView } from "../handoffs/views";
import {
  entryText,
  firstLine,
  fitsInEntry,
  isoDateTime,
  MAX_IMPORT_BYTES,
  MAX_LIST_ITEMS,
  optionalText,
  parseJsonText,
  requiredAs,
  textList,
  validateDocument,
} from "./schema-helpers";
import { parseJsonPrecisely } from "./canonical-json";
import { storyIdsIn, vagueInstructionWarning } from "./quality";
import { clip } from "./summarize-handoff";
import { latestUnchangedImport, openQuestions, sourceFiles } from "./snapshot";
import type { DraftEntry, FormatModule, QualityWarning, ThreadDraft, HandoffSnapshot } from "./types";

export const HANDOFF_JSON_REASONS = ["context_threshold", "error", "user_request"] as const;
export const STORY_STATUSES = ["planning", "implementing", "testing", "blocked"] as const;

const enumOf = (values: readonly string[]) => ({
  error: (issue: { input?: unknown }) =>
    issue.input === undefined ? "is required" : `must be one of ${values.join(", ")} (got ${JSON.stringify(issue.input)?.slice(0, 60)})`,
});

/** handoff.json of the context handoff protocol (seed 002). Unknown extra keys are kept with the source document. */
export const handoffJsonSchema = z.object({
  timestamp: isoDateTime(),
  reason: z.enum(HANDOFF_JSON_REASONS, enumOf(HANDOFF_JSON_REASONS)),
  current_story: z.object(
    {
      id: entryText(),
      title: entryText(),
      progress_percent: z
        .number(requiredAs("a number from 0 to 100"))
        .min(0, { error: "must be 0–100" })
        .max(100, { error: "must be 0–100" }),
      status: z.enum(STORY_STATUSES, enumOf(STORY_STATUSES)),
    },
    requiredAs("an object with id, title, progress_percent and status"),
  ),
  work_in_progress: z.object(
    {
      files_modified: textList("a file path"),
      uncommitted_changes: optionalText(),
      last_completed_step: optionalText(),
      next_steps: textList(),
    },
    requiredAs("an object with files_modified, uncommitted_changes, last_completed_step and next_steps"),
  ),
  context_learned: textList(),
  blockers: textList(),
  handoff_instruction: entryText(),
});

export type HandoffJson = z.output<typeof handoffJsonSchema>;

function qualityWarnings(doc: HandoffJson): QualityWarning[] {
  const { current_story: story, work_in_progress: work } = doc;
  const warnings = [...vagueInstructionWarning("handoff_instruction", doc.handoff_instruction)];
  if (work.next_steps.length === 0) {
    warnings.push({
      code: "no_next_steps",
      field: "work_in_progress.next_steps",
      message: "No next steps: after the instruction the next agent has no plan to follow.",
    });
  }
  if (story.status === "blocked" && doc.blockers.length === 0) {
    warnings.push({
      code: "blocked_without_blockers",
      field: "blockers",
      message: "The story is blocked but no blocker is listed: the next agent cannot see what stops it.",
    });
  }
  if (story.progress_percent === 100) {
    warnings.push({
      code: "complete_but_not_done",
      field: "current_story.status",
      message: `Progress is 100% but the status is still "${story.status}", not done: either the story is finished (hand off the next one) or the progress is overstated.`,
    });
  }
  const others = storyIdsIn([story.title, doc.handoff_instruction, ...work.next_steps].join("\n")).filter((id) => id !== story.id);
  if (others.length > 0) {
    warnings.push({
      code: "multiple_stories",
      field: "current_story",
      message: `More than one story in this handoff (${[oneLine(story.id), ...others].join(", ")}): hand off one story at a time.`,
    });
  }
  if ((story.status === "implementing" || story.status === "testing") && work.files_modified.length === 0) {
    warnings.push({
      code: "missing_files",
      field: "work_in_progress.files_modified",
      message: "Work is in progress but no modified files are listed: the next agent will have to rediscover them.",
    });
  }
  return warnings;
}

/** The context entry the learned facts become: one, so together they must fit in an entry. */
const learnedEntry = (facts: string[]) => `**Learned this session:**\n\n${facts.map((fact) => `- ${fact}`).join("\n")}`;

/** The progress entry work_in_progress becomes: last step, progress and uncommitted changes in one. */
function progressEntry(work: HandoffJson["work_in_progress"], percent: number): string {
  return [
    work.last_completed_step.trim() && `**Last completed step:** ${work.last_completed_step}`,
    `**Progress:** ${percent}%`,
    work.uncommitted_changes.trim() && `**Uncommitted changes:** ${work.uncommitted_changes}`,
  ]
    .filter(Boolean)
    .join("\n\n");
}

function toThread(doc: HandoffJson): ThreadDraft {
  const { current_story: story, work_in_progress: work } = doc;
  const code = (type: DraftEntry["type"], field: string, content: string): DraftEntry => ({ type, fromClient: "code", content, field });
  const entries: DraftEntry[] = [
    code(
      "context",
      "current_story",
      `**Handoff reason:** ${doc.reason}\n\n**Story ${story.id}:** ${story.title}\n\nStatus ${story.status}, ${story.progress_percent}% done.`,
    ),
  ];
  if (doc.context_learned.length > 0) entries.push(code("context", "context_learned", learnedEntry(doc.context_learned)));
  entries.push(code("progress", "work_in_progress", progressEntry(work, story.progress_percent)));
  entries.push(code("task", "handoff_instruction", doc.handoff_instruction));
  work.next_steps.forEach((step, index) => {
    if (step.trim()) entries.push(code("task", `work_in_progress.next_steps[${index}]`, step));
  });
  doc.blockers.forEach((blocker, index) => {
    if (blocker.trim()) entries.push(code("question", `blockers[${index}]`, blocker));
  });
  return {
    title: firstLine(`${story.id}: ${story.title}`),
    entries,
    metadata: {
      files: work.files_modified,
      documentTimestamp: doc.timestamp,
      reason: doc.reason,
      status: story.status,
      storyId: story.id,
      progressPercent: story.progress_percent,
    },
    warnings: qualityWarnings(doc),
    parent: null,
  };
}

/** The percentage a progress entry's text gives: its first `N%`, when N is at most 100. */
export function progressPercentOf(content: string): number | null {
  const match = content.match(/\b(\d{1,3})\s?%/);
  return match && Number(match[1]) <= 100 ? Number(match[1]) : null;
}

function progressFrom(entries: EntryView[], fallback: number): number {
  if (entries.some((entry) => entry.type === "done")) return 100;
  for (const entry of [...entries].reverse()) {
    const percent = entry.type === "progress" ? progressPercentOf(entry.content) : null;
    if (percent !== null) return percent;
  }
  return fallback;
}

/** The entry whose text becomes the handoff instruction: the latest decision, else the newest task, else the last entry. */
export function instructionEntryOf<Entry extends EntryView>(entries: Entry[]): Entry | null {
  return entries.findLast((entry) => entry.type === "decision") ?? entries.findLast((entry) => entry.type === "task") ?? entries.at(-1) ?? null;
}

/** Entries added in Baton after the import, folded into the imported document. */
function foldInto(base: Record<string, unknown>, doc: HandoffJson, added: EntryView[]): Record<string, unknown> {
  const work = { ...(base.work_in_progress as Record<string, unknown>), ...doc.work_in_progress };
  const story = { ...(base.current_story as Record<string, unknown>), ...doc.current_story };
  const learned = [...doc.context_learned];
  const blockers = [...doc.blockers];
  const nextSteps = [...work.next_steps];
  for (const entry of added) {
    if (entry.type === "task") nextSteps.push(entry.content);
    if (entry.type === "question") blockers.push(entry.content);
    if (entry.type === "context" || entry.type === "decision") learned.push(entry.content);
    if (entry.type === "progress" || entry.type === "done") work.last_completed_step = entry.content;
  }
  story.progress_percent = progressFrom(added, doc.current_story.progress_percent);
  return {
    ...base,
    timestamp: added.at(-1)?.createdAt ?? doc.timestamp,
    current_story: story,
    work_in_progress: { ...work, next_steps: nextSteps },
    context_learned: learned,
    blockers,
  };
}

function fromEntries(snapshot: HandoffSnapshot): HandoffJson {
  const { handoff, entries } = snapshot;
  const tasks = entries.filter((entry) => entry.type === "task").map((entry) => entry.content);
  const questions = openQuestions(entries).map((entry) => entry.content);
  const lastStep = [...entries].reverse().find((entry) => entry.type === "progress" || entry.type === "done");
  const latestDecision = [...entries].reverse().find((entry) => entry.type === "decision");
  const instruction = instructionEntryOf(entries)?.content ?? handoff.title;
  const done = entries.some((entry) => entry.type === "done");
  return {
    timestamp: entries.at(-1)?.createdAt ?? handoff.updatedAt,
    reason: "user_request",
    current_story: {
      id: handoff.id,
      title: handoff.title,
      progress_percent: progressFrom(entries, 0),
      status: questions.length > 0 ? "blocked" : done ? "testing" : tasks.length > 0 ? "implementing" : "planning",
    },
    work_in_progress: {
      files_modified: sourceFiles(snapshot).slice(-MAX_LIST_ITEMS),
      uncommitted_changes: "",
      last_completed_step: lastStep?.content ?? "",
      next_steps: tasks.filter((task) => task !== instruction),
    },
    context_learned: entries
      .filter((entry) => entry.type === "context" || (entry.type === "decision" && entry !== latestDecision))
      .map((entry) => entry.content),
    blockers: questions,
    handoff_instruction: instruction,
  };
}

/**
 * A document Baton writes is one it would read again: each list its newest MAX_LIST_ITEMS
 * items, the newest learned facts that fit their one entry, the last step cut to fit the progress
 * entry, and the whole within MAX_IMPORT_BYTES (the oldest next steps dropped first, then facts,
 * then blockers). A long thread's export once failed as Baton's own error, or wrote a handoff.json
 * its import then refused.
 */
function withinLimits(doc: HandoffJson, handoffId: string): HandoffJson {
  const facts = doc.context_learned.slice(-MAX_LIST_ITEMS);
  // The fewest oldest facts to leave out (fitting only gets easier as more are left out).
  let [low, high] = [0, facts.length];
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (fitsInEntry(learnedEntry(facts.slice(middle)))) high = middle;
    else low = middle + 1;
  }
  const work = { ...doc.work_in_progress, next_steps: doc.work_in_progress.next_steps.slice(-MAX_LIST_ITEMS) };
  const spare = MAX_CONTENT_BYTES - Buffer.byteLength(progressEntry(work, doc.current_story.progress_percent), "utf8");
  const step = work.last_completed_step;
  if (spare < 0 && step.trim()) work.last_completed_step = `${clip(step, Math.max(0, Buffer.byteLength(step, "utf8") + spare - Buffer.byteLength("…", "utf8")))}…`;
  const lists = { context_learned: facts.slice(low), next_steps: work.next_steps, blockers: doc.blockers.slice(-MAX_LIST_ITEMS) };
  const build = (): HandoffJson => ({ ...doc, work_in_progress: { ...work, next_steps: lists.next_steps }, context_learned: lists.context_learned, blockers: lists.blockers });
  // Counted on the compact form (what serialize falls back to); an item frees at least its own bytes.
  let over = Buffer.byteLength(JSON.stringify(build()), "utf8") - MAX_IMPORT_BYTES;
  for (const name of ["next_steps", "context_learned", "blockers"] as const) {
    while (over > 0 && lists[name].length > 0) over -= Buffer.byteLength(JSON.stringify(lists[name].shift()), "utf8");
  }
  if (over > 0) throw new Invalid(`handoff ${handoffId} does not fit in a handoff.json (1 MiB) even without its lists; export it as a bundle`, { format: ["export it as a bundle"] });
  return build();
}

/**
 * Export. A thread imported from handoff.json gives its source document back, every field as
 * it was (unknown extra keys too), with what was added in Baton since folded in; any other
 * thread is mapped from its entries.
 */
function fromThread(snapshot: HandoffSnapshot): HandoffJson {
  const unchanged = latestUnchangedImport(snapshot, "handoff_json");
  if (!unchanged) return withinLimits(fromEntries(snapshot), snapshot.handoff.id);
  // Read twice: the fields as a double holds them for the schema, the document as written for the answer.
  const doc = handoffJsonSchema.parse(JSON.parse(unchanged.document));
  const base = parseJsonPrecisely(unchanged.document) as Record<string, unknown>;
  if (unchanged.added.length === 0) return base as HandoffJson;
  return withinLimits(foldInto(base, doc, unchanged.added) as HandoffJson, snapshot.handoff.id);
}

/** Two-space JSON, or compact when that would pass the import limit (an imported document was compact). */
function serialize(doc: HandoffJson): string {
  const pretty = `${JSON.stringify(doc, null, 2)}\n`;
  return Buffer.byteLength(pretty, "utf8") <= MAX_IMPORT_BYTES ? pretty : `${JSON.stringify(doc)}\n`;
}

export const handoffJsonFormat: FormatModule<HandoffJson> = {
  format: "handoff_json",
  parse: (text) => handoffJsonFormat.validate(parseJsonText(text)),
  syntax: "json",
  validate: (value) => validateDocument(handoffJsonSchema, value, "a handoff.json"),
  toThread,
  fromThread,
  serialize,
  fileName: "handoff.json",
  contentType: "application/json; charset=utf-8",
};
