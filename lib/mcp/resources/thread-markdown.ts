import type { HandoffThread } from "../../handoffs";
import type { ClientSide } from "../../handoffs/schemas";
import { summarizeStaleness } from "../../git/types";
import { fenceFor, handoffDetails, quoteDetails, quoteEntries, quotingNotice, textsOf } from "../../pickup/quote";

/**
 * A thread as Markdown for the side reading it, the **transcript** (get_handoff's text block, the
 * handoff resource, the pickup prompt): Baton's header (ID, status, counts), then the entries new
 * to that side (oldest first), then the earlier ones. Everything from outside (the title, the
 * project, the repository's commit subjects, branch and file names, the entries) is quoted
 * (lib/pickup/quote.ts: the entries as one block, each under a heading carrying the fence), so no
 * entry can pose as another's heading or as Baton's words. What get_handoff's byte budget left out
 * is named with how to fetch it. Reading never moves a cursor.
 */
export function threadMarkdown(thread: HandoffThread, side: ClientSide): string {
  const { handoff } = thread;
  const fresh = new Set(thread.newEntries.map((entry) => entry.seq));
  const earlier = thread.entries.filter((entry) => !fresh.has(entry.seq));
  const details = handoffDetails(handoff, thread.staleness);
  const fence = fenceFor([...textsOf(details), ...thread.newEntries.map((entry) => entry.content), ...earlier.map((entry) => entry.content)]);
  const lines = [
    `# Handoff ${handoff.id}`,
    "",
    `- Status: ${handoff.status}`,
    `- Read as: ${side} · ${thread.newCount} new of ${thread.entryCount} entries`,
    `- Last activity: ${handoff.updatedAt}`,
    "",
    quotingNotice(fence, true),
    "",
  ];
  // Before the entries: the model weighs them against what changed in the code since.
  if (thread.staleness) lines.push(`> ${summarizeStaleness(thread.staleness)}`, "");
  lines.push(`Its title and project${thread.staleness ? ", and what changed in the repository," : ""}:`, quoteDetails(handoff.id, details, fence), "");
  if (handoff.status === "completed") lines.push("This handoff is completed: its entries were deleted when it was closed.", "");
  if (thread.newEntries.length) {
    lines.push(`## New to ${side} (${thread.newEntries.length})`, "");
    lines.push(quoteEntries(`${handoff.id}, new to ${side}`, thread.newEntries, fence), "");
  }
  if (earlier.length) {
    lines.push(thread.newEntries.length ? "## Earlier entries" : "## Entries", "");
    lines.push(quoteEntries(thread.newEntries.length ? `${handoff.id}, earlier` : handoff.id, earlier, fence), "");
  }
  if (thread.hint) lines.push(`> ${thread.hint}`, "");
  return lines.join("\n");
}
