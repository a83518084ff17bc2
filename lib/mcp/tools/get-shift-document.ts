import { z } from "zod";
import { operationInput } from "../../validation";
import { loadAgents } from "../domain";
import { agentRefArg } from "../agent-inputs";
import { mcpAgentSchema, mcpHandoffRecordSchema, toMcpAgent, toMcpHandoffRecord } from "../agent-views";
import { repoPathArg, repoPathOf } from "../git-args";
import { mcpStalenessSchema, toMcpStaleness } from "../staleness-view";
import { defineTool } from "../tool-kit";

export const getShiftDocumentTool = defineTool({
  name: "get_shift_document",
  title: "Read a shift document",
  description:
    'Read the shift document a previous agent left you, when your first prompt says "Continuing from Agent <id>" and ' +
    "you cannot open the file it names (you run elsewhere). Pass that id (or your own agent id: you get the document " +
    "you continue from). The same text is the MCP resource baton://agents/<id>/handoff. Your first read is recorded " +
    "on the handoff; then follow the document's next steps and call report_context once you are under way. When the " +
    "code has moved on since the document was written, staleness says so; read it first.",
  input: operationInput({ agent: agentRefArg, repo_path: repoPathArg }),
  output: z.object({
    content: z.string().describe("The shift document, Markdown"),
    file_path: z.string().describe("Relative to Baton's data folder"),
    absolute_path: z.string().describe("Where the file is on the Baton server's machine"),
    resource_uri: z.string().describe("The same document as an MCP resource"),
    agent: mcpAgentSchema.describe("The agent who wrote it and handed off"),
    record: mcpHandoffRecordSchema,
    staleness: mcpStalenessSchema,
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, context) {
    const { getShiftDocument, shiftDocumentUri } = await loadAgents();
    const document = await getShiftDocument({ agentId: args.agent, repoPath: repoPathOf(args.repo_path, context) });
    return {
      content: document.content,
      file_path: document.filePath,
      absolute_path: document.absolutePath,
      resource_uri: shiftDocumentUri(document.agent.id),
      agent: toMcpAgent(document.agent),
      record: toMcpHandoffRecord(document.record),
      staleness: toMcpStaleness(document.staleness),
    };
  },
  lead: (result) => result.staleness?.block ?? null,
});
