import { z } from "zod";
import { extractHandoffId } from "../handoffs/handoff-ref";
import { MAX_THREAD_LIMIT, THREAD_ANSWER_BUDGET_BYTES } from "../handoffs/limits";
import { CLIENT_SIDES, ENTRY_TYPES } from "../handoffs/schemas";

/** Argument schemas shared by the tools. Domain functions validate the values again, fully. */
export const handoffIdArg = z
  .string({ error: "id is required: pass the handoff ID the user gave you (hof_…)" })
  .describe("The handoff ID, e.g. hof_V1StGXR8Z5jdHi6BmyT2a, exactly as the user pasted it");

export const asClientArg = z
  .enum(CLIENT_SIDES, { error: 'as_client must be "chat" or "code"' })
  .optional()
  .describe(
    'Which side you are. "chat" = Claude Desktop, claude.ai or mobile (the decision layer); "code" = Claude Code ' +
      "(the implementation layer). Your entries are tagged with it and new_entries is computed from its read cursor. " +
      'Omit it to use this server\'s identity: "chat", unless Baton was started with --as code.',
  );

export const entryTypeArg = z
  .enum(ENTRY_TYPES, {
    error: (issue) => `type "${String(issue.input)}" is not an entry type; use one of ${ENTRY_TYPES.join(", ")}`,
  })
  .describe(
    "context = background, decisions made, requirements; task = a work item to implement; progress = status " +
      "update; question = you need a decision from the other side; decision = an answer or chosen direction; " +
      "done = work completed, deliverable ready",
  );

export const answersArg = z
  .number({ error: "answers must be a whole number: the number (#) of a question in this thread" })
  .optional()
  .describe(
    "When this entry answers a question of the thread: that question's number (its `number`, #3 → 3). The question " +
      "then counts as answered everywhere, and type defaults to decision.",
  );

export const contentArg = z
  .string({ error: "content is required" })
  .describe("The message, in Markdown; at most 64 KiB");

/** The ID in what a model passed (pasted IDs may come quoted, in backticks or as a dashboard URL). */
export function handoffIdOf(raw: string): string {
  return extractHandoffId(raw) ?? raw;
}

// Paging arguments: typed here, ranges checked by the domain function (one place, one message).
export const afterSeqArg = z
  .number({ error: "after_seq must be a whole number: an entry seq" })
  .optional()
  .describe(
    "Read only the entries after this seq, oldest first (after_seq=0: from the start). Use it to read on where a " +
      "truncated answer stopped, or to fetch only what was written since the last entry you have.",
  );

export const beforeSeqArg = z
  .number({ error: "before_seq must be a whole number: an entry seq" })
  .optional()
  .describe("Read only the latest entries before this seq (newest kept when the answer must be cut), to read back in time.");

export const limitArg = z
  .number({ error: `limit must be a whole number from 1 to ${MAX_THREAD_LIMIT}` })
  .optional()
  .describe(
    `At most this many entries (1 to ${MAX_THREAD_LIMIT}). Answers also stop at about ` +
      `${Math.round(THREAD_ANSWER_BUDGET_BYTES / 1000)} KB; omitted and hint say what was left out.`,
  );
