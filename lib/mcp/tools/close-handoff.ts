import { z } from "zod";
import { loadHandoffs } from "../domain";
import { defineTool } from "../tool-kit";
import { handoffIdArg, handoffIdOf } from "../tool-inputs";
import { mcpHandoffSchema, toMcpHandoff } from "../views";

export const closeHandoffTool = defineTool({
  name: "close_handoff",
  title: "Close handoff",
  description:
    "Close a finished handoff session, only when the user says the work is done or asks to close it. Deletes every " +
    "entry and marks the handoff completed; the handoff row stays for reference but the conversation is gone and " +
    "nothing more can be added. Closing an already completed handoff changes nothing.",
  input: z.object({ id: handoffIdArg }),
  output: mcpHandoffSchema,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run(args) {
    const { closeHandoff } = await loadHandoffs();
    return toMcpHandoff(await closeHandoff({ id: handoffIdOf(args.id) }));
  },
});
