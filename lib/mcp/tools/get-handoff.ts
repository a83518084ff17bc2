import { z } from "zod";
import { deepFreeze } from "../../deep-freeze";
import type { HandoffThread } from "../../handoffs/get-handoff";
import { operationInput } from "../../validation";
import { THREAD_ANSWER_BUDGET_BYTES } from "../../handoffs/limits";
import { loadHandoffs } from "../domain";
import { repoPathArg, repoPathOf } from "../git-args";
import { currentCaller, sideOfCall } from "../../caller";
import { threadMarkdown } from "../resources/thread-markdown";
import { defineTool, withTextBlock } from "../tool-kit";
import { afterSeqArg, asClientArg, beforeSeqArg, handoffIdArg, handoffIdOf, limitArg } from "../tool-inputs";
import { mcpStalenessSchema, toMcpStaleness } from "../staleness-view";
import { mcpEntrySchema, mcpHandoffSchema, mcpOmittedRangeSchema, toMcpEntry, toMcpHandoff, toMcpOmittedRange } from "../views";

const threadAnswerSchema = z.object({
  handoff: mcpHandoffSchema,
  entries: z.array(mcpEntrySchema).describe("The entries in this answer, oldest first: the whole thread unless truncated"),
  new_entries: z.array(mcpEntrySchema).describe("Those of entries with seq above your side's last_seen cursor"),
  new_count: z.number().int().describe("All entries above your cursor, including any this answer left out"),
  entry_count: z.number().int().describe("All entries of the thread"),
  truncated: z.boolean().describe("True when entries you asked for were left out (size budget or limit)"),
  omitted: z.object({
    earlier: mcpOmittedRangeSchema.describe("Entries before the first one in this answer that were left out"),
    later: mcpOmittedRangeSchema.describe("Entries after the last one in this answer that were left out"),
  }),
  hint: z.string().nullable().describe("How to fetch what was left out; null when nothing was"),
  staleness: mcpStalenessSchema,
});

/**
 * Answers made of frozen threads: getHandoff hands over the same frozen thread while nothing
 * changed (lib/handoffs' remembered reads), and its answer is then the same frozen object, whose
 * JSON, text block and output check the tool kit makes only once.
 */
const answers = new WeakMap<HandoffThread, z.output<typeof threadAnswerSchema>>();

export const getHandoffTool = defineTool({
  name: "get_handoff",
  title: "Read handoff",
  description:
    "Read a handoff by its ID when the user pastes one or asks you to check a handoff. Returns its entries, with " +
    "those the other side wrote since you last marked the thread read marked new (new_entries and new_count in the " +
    `structured answer). A long thread comes back cut to about ${Math.round(THREAD_ANSWER_BUDGET_BYTES / 1000)} KB, new ` +
    "entries first: the answer then names what it left out and how to fetch it (after_seq to read on, before_seq to " +
    "read back; truncated, omitted and hint in the structured answer). Reading does not move your cursor: call " +
    "mark_handoff_read once you have taken all the new entries in. A completed handoff has no entries left. When the " +
    "code has moved on since the handoff was written (commits, another branch, files it names changed), the answer " +
    "says so before the entries (staleness); read that first.",
  input: operationInput({ id: handoffIdArg, as_client: asClientArg, after_seq: afterSeqArg, before_seq: beforeSeqArg, limit: limitArg, repo_path: repoPathArg }),
  output: threadAnswerSchema,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, context) {
    const { getHandoff } = await loadHandoffs();
    const thread = await getHandoff({
      id: handoffIdOf(args.id),
      asClient: args.as_client,
      afterSeq: args.after_seq,
      beforeSeq: args.before_seq,
      limit: args.limit,
      repoPath: repoPathOf(args.repo_path, context),
    });
    let answer = answers.get(thread);
    if (answer) return answer;
    // The side getHandoff read the thread as (its remembered reads are one per side).
    const side = sideOfCall(currentCaller(), args.as_client);
    answer = {
      handoff: toMcpHandoff(thread.handoff),
      entries: thread.entries.map(toMcpEntry),
      new_entries: thread.newEntries.map(toMcpEntry),
      new_count: thread.newCount,
      entry_count: thread.entryCount,
      truncated: thread.truncated,
      omitted: { earlier: toMcpOmittedRange(thread.omitted.earlier), later: toMcpOmittedRange(thread.omitted.later) },
      hint: thread.hint,
      staleness: toMcpStaleness(thread.staleness),
    };
    // The text block is the thread as a quoted transcript (the staleness before the entries), not
    // its JSON again: what a model reads in a client that shows it only text, in fewer tokens, and
    // a 300-entry answer stays under 128 KiB, past which the SDK's client pays several times more
    // to read it.
    withTextBlock(answer, threadMarkdown(thread, side));
    if (Object.isFrozen(thread)) answers.set(thread, deepFreeze(answer));
    return answer;
  },
});
