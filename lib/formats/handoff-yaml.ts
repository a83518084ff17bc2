import { stringify } from "yaml";
import { z } from "zod";
import { MAX_CONTENT_BYTES } from "../handoffs/schemas";
import type { EntryView } from "../handoffs/views";
import { vagueInstructionWarning } from "./quality";
import { entryText, firstLine, isoDateTime, optionalText, parseYamlText, requiredAs, textList, validateDocument, yamlValueOf } from "./schema-helpers";
import { latestUnchangedImport, openQuestions, sourceFiles } from "./snapshot";
import { clip } from "./summarize-handoff";
import type { DraftEntry, FormatModule, QualityWarning, ThreadDraft, HandoffSnapshot } from "./types";

export const YAML_STATUSES = ["in_progress", "completed", "blocked"] as const;
/** The seed's field order, which is also the order Baton writes. */
export const YAML_FIELDS = ["goal", "status", "now", "hypothesis", "outcome", "files", "branch", "timestamp", "session_id"] as const;

const shortText = (max: number) =>
  z.string(requiredAs("a string")).max(max, { error: `must be at most ${max} characters` });

/** flow-guardian's `.flow-guardian/handoff.yaml` (seed 003). Extra keys are tolerated, as the seed's loader does. */
export const handoffYamlSchema = z.looseObject({
  goal: entryText(),
  status: z.enum(YAML_STATUSES, {
    error: (issue) =>
      issue.input === undefined
        ? "is required"
        : `must be one of ${YAML_STATUSES.join(", ")} (got ${(typeof issue.input === "bigint" ? String(issue.input) : JSON.stringify(issue.input))?.slice(0, 60)})`,
  }),
  now: entryText(),
  hypothesis: optionalText().nullish(),
  outcome: optionalText().nullish(),
  files: textList("a file path").nullish(),
  branch: shortText(255).nullish(),
  timestamp: isoDateTime(),
  session_id: shortText(255).nullish(),
});

export type HandoffYaml = z.output<typeof handoffYamlSchema>;

/**
 * The seed's save rule: validate required fields; a missing timestamp is filled with `now`. The
 * document is answered as given, extra keys and all: the schema changes no value, and zod's
 * loose object leaves out a key named `__proto__`, which an export or a checkpoint then dropped.
 */
export function validateHandoffYaml(value: unknown, now: Date = new Date()): HandoffYaml {
  const filled =
    typeof value === "object" && value !== null && !Array.isArray(value) && (value as Record<string, unknown>).timestamp == null
      ? { ...(value as Record<string, unknown>), timestamp: now.toISOString() }
      : value;
  validateDocument(handoffYamlSchema, filled, "a handoff.yaml");
  return { ...(filled as HandoffYaml) };
}

/**
 * The seed's update rule: merge `updates` (fields set to undefined are left alone) into the
 * existing handoff, or start one when there is none; the timestamp is always refreshed.
 */
export function mergeHandoffYaml(existing: Record<string, unknown> | null, updates: Record<string, unknown>, now: Date = new Date()): HandoffYaml {
  const given = Object.fromEntries(Object.entries(updates).filter(([, value]) => value !== undefined));
  return validateHandoffYaml({ ...(existing ?? {}), ...given, timestamp: now.toISOString() }, now);
}

function qualityWarnings(doc: HandoffYaml): QualityWarning[] {
  const warnings = [...vagueInstructionWarning("now", doc.now)];
  if (doc.status === "blocked" && !doc.hypothesis?.trim() && !doc.outcome?.trim()) {
    warnings.push({
      code: "blocked_without_blockers",
      field: "status",
      message: "The status is blocked but neither hypothesis nor outcome says what blocks it.",
    });
  }
  if (doc.status === "in_progress" && (doc.files ?? []).length === 0) {
    warnings.push({
      code: "missing_files",
      field: "files",
      message: "Work is in progress but no files are listed: the next agent will have to rediscover them.",
    });
  }
  return warnings;
}

const OUTCOME_LABEL = "**Outcome:** ";

/**
 * A done entry as the exported outcome, cut to fit the entry an import makes of it: a done entry
 * near 64 KiB made a handoff.yaml Baton then refused to import.
 */
function outcomeOf(content: string): string {
  const room = MAX_CONTENT_BYTES - Buffer.byteLength(OUTCOME_LABEL, "utf8");
  return Buffer.byteLength(content, "utf8") <= room ? content : `${clip(content, room - Buffer.byteLength("…", "utf8"))}…`;
}

function toThread(doc: HandoffYaml): ThreadDraft {
  const code = (type: DraftEntry["type"], field: string, content: string): DraftEntry => ({ type, fromClient: "code", content, field });
  const entries = [code("context", "goal", `**Goal:** ${doc.goal}`), code("context", "now", `**Now:** ${doc.now}`)];
  if (doc.hypothesis?.trim()) entries.push(code("progress", "hypothesis", `**Hypothesis:** ${doc.hypothesis}`));
  if (doc.outcome?.trim()) entries.push(code("progress", "outcome", `${OUTCOME_LABEL}${doc.outcome}`));
  return {
    title: firstLine(doc.goal),
    entries,
    metadata: {
      files: doc.files ?? [],
      branch: doc.branch ?? null,
      sessionId: doc.session_id ?? null,
      documentTimestamp: doc.timestamp,
      status: doc.status,
    },
    warnings: qualityWarnings(doc),
    parent: null,
  };
}

function statusFrom(entries: EntryView[], fallback: HandoffYaml["status"]): HandoffYaml["status"] {
  if (entries.at(-1)?.type === "done") return "completed";
  if (openQuestions(entries).length > 0) return "blocked";
  return entries.length > 0 && fallback === "completed" ? "in_progress" : fallback;
}

function fromEntries(snapshot: HandoffSnapshot): HandoffYaml {
  const { handoff, entries, source } = snapshot;
  const last = entries.at(-1);
  const outcome = entries.findLast((entry) => entry.type === "done");
  return {
    goal: handoff.title,
    status: handoff.status === "completed" ? "completed" : statusFrom(entries, "in_progress"),
    now: last ? firstLine(last.content, 500) : handoff.title,
    hypothesis: null,
    outcome: outcome ? outcomeOf(outcome.content) : null,
    files: sourceFiles(snapshot),
    branch: source?.metadata.branch ?? null,
    timestamp: last?.createdAt ?? handoff.updatedAt,
    ...(source?.metadata.sessionId ? { session_id: source.metadata.sessionId } : {}),
  };
}

/**
 * Export. A thread imported from handoff.yaml gives its document back (the timestamp it was
 * given on import when it had none; status completed once closed), with entries added since
 * folded into `now`, `status` and `outcome`; any other thread is mapped from its entries.
 */
function fromThread(snapshot: HandoffSnapshot): HandoffYaml {
  const unchanged = latestUnchangedImport(snapshot, "handoff_yaml");
  if (!unchanged) return fromEntries(snapshot);
  // The document as imported, read as the import read it (a `!custom` tag as plain text, no warning on stderr).
  const base = yamlValueOf(unchanged.document, { exactIntegers: true }) as Record<string, unknown>;
  const doc = validateHandoffYaml({ ...base, timestamp: base.timestamp ?? snapshot.source?.metadata.documentTimestamp });
  const { added } = unchanged;
  // A closed thread is completed, as fromEntries says of one: its kept document still said in_progress.
  if (added.length === 0) return snapshot.handoff.status === "completed" ? { ...doc, status: "completed" } : doc;
  const outcome = added.findLast((entry) => entry.type === "done");
  return {
    ...doc,
    now: firstLine(added.at(-1)!.content, 500),
    status: statusFrom(added, doc.status),
    ...(outcome && { outcome: outcomeOf(outcome.content) }),
    timestamp: added.at(-1)!.createdAt,
  };
}

/**
 * YAML in the seed's field order, extra keys after; absent optional fields are left out. A Map,
 * not an object: an extra key named `constructor`, `toString` or `__proto__` was dropped (`in`
 * finds Object.prototype's members, and assigning `__proto__` sets the prototype).
 */
export function serializeHandoffYaml(doc: HandoffYaml): string {
  const record = doc as Record<string, unknown>;
  const ordered = new Map<string, unknown>();
  for (const key of YAML_FIELDS) if (Object.hasOwn(record, key) && record[key] !== undefined) ordered.set(key, record[key]);
  for (const [key, value] of Object.entries(record)) if (!ordered.has(key) && value !== undefined) ordered.set(key, value);
  return stringify(ordered, { lineWidth: 0 });
}

export const handoffYamlFormat: FormatModule<HandoffYaml> = {
  format: "handoff_yaml",
  parse: (text) => validateHandoffYaml(parseYamlText(text)),
  syntax: "yaml",
  validate: (value) => validateHandoffYaml(value),
  toThread,
  fromThread,
  serialize: serializeHandoffYaml,
  fileName: "handoff.yaml",
  contentType: "application/yaml; charset=utf-8",
};
