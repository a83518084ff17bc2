import type { HandoffThread } from "../../handoffs";
import type { ClientSide } from "../../handoffs/schemas";
import type { EntryView } from "../../handoffs/views";

/** An entry's heading names its seq too: what after_seq and before_seq take. */
function entryBlock(entry: EntryView, fresh: boolean): string {
  const answers = entry.answers === null ? "" : ` · answers #${entry.answers}`;
  const marker = fresh ? " · **NEW**" : "";
  return `### #${entry.number} ${entry.type} from ${entry.fromClient}${answers} · ${entry.createdAt} · seq ${entry.seq}${marker}\n\n${entry.content}\n`;
}

/**
 * A thread as Markdown for the side reading it: a header, then the entries new to that side
 * (marked **NEW**, oldest first), then the earlier ones. What get_handoff's byte budget left
 * out is named with how to fetch it. Reading never moves a cursor. The handoff resource and the
 * pickup prompt.
 */
export function threadMarkdown(thread: HandoffThread, side: ClientSide): string {
  const { handoff } = thread;
  const fresh = new Set(thread.newEntries.map((entry) => entry.seq));
  const earlier = thread.entries.filter((entry) => !fresh.has(entry.seq));
  const lines = [
    `# ${handoff.title}`,
    "",
    `- ID: \`${handoff.id}\``,
    `- Status: ${handoff.status}${handoff.project ? ` · project ${handoff.project}` : ""}`,
    `- Read as: ${side} · ${thread.newCount} new of ${thread.entryCount} entries`,
    `- Last activity: ${handoff.updatedAt}`,
    "",
  ];
  // Before the entries: the model weighs them against what changed in the code since.
  if (thread.staleness) lines.push(`> ${thread.staleness.block}`, "");
  if (handoff.status === "completed") lines.push("This handoff is completed: its entries were deleted when it was closed.", "");
  if (thread.newEntries.length) {
    lines.push(`## New to ${side} (${thread.newEntries.length})`, "");
    for (const entry of thread.newEntries) lines.push(entryBlock(entry, true));
  }
  if (earlier.length) {
    lines.push(thread.newEntries.length ? "## Earlier entries" : "## Entries", "");
    for (const entry of earlier) lines.push(entryBlock(entry, false));
  }
  if (thread.hint) lines.push(`> ${thread.hint}`, "");
  return lines.join("\n");
}
