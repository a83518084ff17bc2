import { z } from "zod";
import { loadHandoffs } from "../domain";
import { clientOf, defineTool } from "../tool-kit";
import { asClientArg, handoffIdArg, handoffIdOf } from "../tool-inputs";
import { mcpEntrySchema, mcpHandoffSchema, toMcpEntry, toMcpHandoff } from "../views";

export const getHandoffTool = defineTool({
  name: "get_handoff",
  title: "Read handoff",
  description:
    "Read a handoff by its ID when the user pastes one or asks you to check a handoff. Returns every entry in order " +
    "plus new_entries: what the other side wrote since you last marked the thread read (new_count of them). Reading " +
    "does not move your cursor: call mark_handoff_read once you have taken the new entries in. A completed handoff " +
    "has no entries left.",
  input: z.object({ id: handoffIdArg, as_client: asClientArg }),
  output: z.object({
    handoff: mcpHandoffSchema,
    entries: z.array(mcpEntrySchema).describe("All entries, oldest first"),
    new_entries: z.array(mcpEntrySchema).describe("Entries with seq above your side's last_seen cursor"),
    new_count: z.number().int(),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, context) {
    const { getHandoff } = await loadHandoffs();
    const thread = await getHandoff({ id: handoffIdOf(args.id), asClient: clientOf(args.as_client, context) });
    return {
      handoff: toMcpHandoff(thread.handoff),
      entries: thread.entries.map(toMcpEntry),
      new_entries: thread.newEntries.map(toMcpEntry),
      new_count: thread.newCount,
    };
  },
});
