import { z } from "zod";
import { operationInput } from "../../validation";
import { loadFormats } from "../domain";
import { defineTool } from "../tool-kit";
import { handoffIdArg, handoffIdOf } from "../tool-inputs";
import { mcpHandoffSchema, toMcpHandoff } from "../views";

export const closeHandoffTool = defineTool({
  name: "close_handoff",
  title: "Close handoff",
  description:
    "Close a finished handoff session, only when the user says the work is done or asks to close it. Deletes every " +
    "entry and marks the handoff completed; the handoff row stays for reference but the conversation is gone and " +
    "nothing more can be added. With archive: true, Baton first keeps the whole thread as a bundle (shown on the " +
    "dashboard) before wiping it. Closing an already completed handoff changes nothing.",
  input: operationInput({
    id: handoffIdArg,
    archive: z
      .boolean({ error: "archive must be true or false" })
      .optional()
      .describe("Keep the thread's history as a bundle before wiping the entries (default false: wipe only)"),
  }),
  output: mcpHandoffSchema.extend({
    archive_artifact_id: z
      .string()
      .nullable()
      .optional()
      .describe("With archive: true, the kept bundle's artifact ID (null when the thread had no entries)"),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run(args) {
    const { closeHandoff } = await loadFormats();
    const closed = await closeHandoff({ id: handoffIdOf(args.id), archive: args.archive ?? false });
    return { ...toMcpHandoff(closed.handoff), ...(args.archive && { archive_artifact_id: closed.artifactId }) };
  },
});
