import { operationInput } from "../../validation";
import { loadHandoffs } from "../domain";
import { defineTool } from "../tool-kit";
import { asClientArg, handoffIdArg, handoffIdOf } from "../tool-inputs";
import { mcpHandoffSchema, toMcpHandoff } from "../views";

export const markHandoffReadTool = defineTool({
  name: "mark_handoff_read",
  title: "Mark handoff read",
  description:
    "Advance your read cursor to the handoff's latest entry, after you have read the new entries from get_handoff. " +
    "Afterwards get_handoff shows new_count 0 until the other side writes again. Returns the handoff with the " +
    "advanced cursor (chat_last_seen or code_last_seen).",
  input: operationInput({ id: handoffIdArg, as_client: asClientArg }),
  output: mcpHandoffSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args) {
    const { markRead } = await loadHandoffs();
    return toMcpHandoff(await markRead({ id: handoffIdOf(args.id), asClient: args.as_client }));
  },
});
