import { z } from "zod";
import { operationInput } from "../../validation";
import { loadHandoffs } from "../domain";
import { repoPathArg, repoPathOf } from "../git-args";
import { mcpRedactionsSchema, redactionLead, toMcpRedactions } from "../redactions";
import { defineTool } from "../tool-kit";
import { asClientArg, contentArg } from "../tool-inputs";
import { mcpEntrySchema, mcpHandoffSchema, toMcpEntry, toMcpHandoff } from "../views";

export const createHandoffTool = defineTool({
  name: "create_handoff",
  title: "Create handoff",
  description:
    "Start a handoff: a thread shared between Claude Chat (decisions) and Claude Code (implementation). Use it when " +
    "the user wants to hand work, context or decisions over to the other client. `content` becomes the first entry " +
    '(type "context"). Tell the user the returned handoff.id and ask them to paste it into the other client, which ' +
    "reads it with get_handoff. There is no list or search: the ID is the only way back to the thread.",
  input: operationInput({
    title: z.string({ error: "title is required" }).describe("Short title for the session, at most 200 characters"),
    content: contentArg.describe("Initial context to share: decisions made, requirements, constraints (Markdown, at most 64 KiB)"),
    project: z
      .string()
      .optional()
      .describe("Optional project tag (lowercase letters, digits, _ or -, e.g. 'dnd', 'hlg'); informational only"),
    as_client: asClientArg,
    repo_path: repoPathArg,
  }),
  output: z.object({ handoff: mcpHandoffSchema, entries: z.array(mcpEntrySchema), redactions: mcpRedactionsSchema }),
  lead: (result) => redactionLead(result.redactions),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, context) {
    const { createHandoff } = await loadHandoffs();
    const created = await createHandoff({
      title: args.title,
      content: args.content,
      project: args.project,
      asClient: args.as_client,
      repoPath: repoPathOf(args.repo_path, context),
    });
    return { handoff: toMcpHandoff(created.handoff), entries: created.entries.map(toMcpEntry), redactions: toMcpRedactions(created.redactions) };
  },
});
