import { z } from "zod";
import { operationInput } from "../../validation";
import { loadHandoffs } from "../domain";
import { repoPathArg, repoPathOf } from "../git-args";
import { mcpRedactionsSchema, redactionLead, toMcpRedactions } from "../redactions";
import { defineTool } from "../tool-kit";
import { answersArg, asClientArg, contentArg, entryTypeArg, handoffIdArg, handoffIdOf } from "../tool-inputs";
import { mcpEntrySchema, mcpHandoffSchema, toMcpEntry, toMcpHandoff } from "../views";

export const addToHandoffTool = defineTool({
  name: "add_to_handoff",
  title: "Add to handoff",
  description:
    "Append an entry to an active handoff: a question for the other side, a decision, a progress update, a task, " +
    "more context, or done when the work is finished. When it answers a question, pass the question's number as answers. " +
    "Entries cannot be edited or deleted. Your read cursor moves " +
    "to your new entry. Fails on a completed handoff. After writing, tell the user to check the handoff in the " +
    "other client.",
  input: operationInput({
    id: handoffIdArg,
    type: entryTypeArg.optional(),
    content: contentArg,
    answers: answersArg,
    as_client: asClientArg,
    repo_path: repoPathArg,
  }),
  output: z.object({ handoff: mcpHandoffSchema, entry: mcpEntrySchema, redactions: mcpRedactionsSchema }),
  lead: (result) => redactionLead(result.redactions),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, context) {
    const { addEntry } = await loadHandoffs();
    const added = await addEntry({
      id: handoffIdOf(args.id),
      type: args.type,
      content: args.content,
      answers: args.answers,
      asClient: args.as_client,
      repoPath: repoPathOf(args.repo_path, context),
    });
    return { handoff: toMcpHandoff(added.handoff), entry: toMcpEntry(added.entry), redactions: toMcpRedactions(added.redactions) };
  },
});
