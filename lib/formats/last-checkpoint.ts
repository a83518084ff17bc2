import "server-only";
import { toMarkdown } from "mdast-util-to-markdown";
import { read } from "../database";
import { newestCheckpointOf } from "./sources";
import { handoffYamlFormat, type HandoffYaml } from "./handoff-yaml";

/** A project's newest flow-guardian checkpoint (handoff.yaml), as End shift offers it. */
export type LastCheckpoint = {
  handoffId: string;
  title: string;
  /** The checkpoint's own timestamp (when it was saved). */
  savedAt: string;
  /** The shift document's start: the template's sections, filled from the checkpoint. */
  document: string;
};

/** `text` as a Markdown code span, fenced by more backticks than it holds (a file or branch name may hold some). */
const codeSpan = (text: string) => toMarkdown({ type: "inlineCode", value: text }).trimEnd();

const section = (heading: string, body: string | null | undefined) => `## ${heading}\n${body?.trim() ? `${body.trim()}\n` : "\n"}`;

/**
 * The shift document's sections (lib/agents' template) filled from a checkpoint: the goal, what
 * it was doing now and its hypothesis, its outcome as done or as the blocker, its files and branch.
 * Sections the checkpoint has nothing for stay empty (saving drops them).
 */
export function shiftDocumentFrom(checkpoint: HandoffYaml): string {
  const blocked = checkpoint.status === "blocked";
  const inProgress = [checkpoint.now, checkpoint.hypothesis ? `Hypothesis: ${checkpoint.hypothesis}` : null].filter(Boolean).join("\n\n");
  const keyFiles = [...(checkpoint.files ?? []).map((file) => `- ${codeSpan(file)}`), checkpoint.branch ? `\nBranch: ${codeSpan(checkpoint.branch)}` : null]
    .filter(Boolean)
    .join("\n");
  return [
    "# Handoff\n",
    section("Goal", checkpoint.goal),
    section("Done", blocked ? null : checkpoint.outcome),
    section("In progress", inProgress),
    section("Next steps", null),
    section("Blockers", blocked ? (checkpoint.outcome ?? "Blocked (the checkpoint says no more).") : null),
    section("Key files", keyFiles),
  ].join("\n");
}

/**
 * The newest checkpoint mirrored into a thread of `project` (`baton checkpoint --push`, or a
 * handoff.yaml imported), or null when the project has none or its document no longer parses.
 */
export async function lastCheckpointOf(project: string): Promise<LastCheckpoint | null> {
  const row = await read((tx) => newestCheckpointOf(tx, project));
  if (!row) return null;
  let checkpoint: HandoffYaml;
  try {
    checkpoint = handoffYamlFormat.parse(row.document);
  } catch {
    return null;
  }
  return { handoffId: row.handoff_id, title: row.title, savedAt: checkpoint.timestamp, document: shiftDocumentFrom(checkpoint) };
}
