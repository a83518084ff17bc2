import { z } from "zod";
import { operationInput } from "../../validation";
import { SHIFT_HANDOFF_REASONS } from "../../agents/schemas";
import { loadAgents } from "../domain";
import { agentRefArg } from "../agent-inputs";
import { mcpAgentSchema, mcpHandoffRecordSchema, toMcpAgent, toMcpHandoffRecord } from "../agent-views";
import { repoPathArg, repoPathOf } from "../git-args";
import { mcpRedactionsSchema, redactionLead, toMcpRedactions } from "../redactions";
import { defineTool } from "../tool-kit";

export const triggerHandoffTool = defineTool({
  name: "trigger_handoff",
  title: "Hand off to a successor",
  description:
    "Hand your work to a successor agent: when your context is nearly full (context_limit), at a natural task " +
    "boundary (task_boundary) or at the end of a shift (shift_end). Baton saves `document` as your handoff " +
    "document, starts the successor in your continuity chain, ends you, and types the successor's first prompt " +
    "into its tmux pane if one is given. Write the document so a fresh agent can continue without you: goal, state, " +
    "decisions, next steps, open questions, files touched.",
  input: operationInput({
    agent: agentRefArg,
    reason: z
      .enum(SHIFT_HANDOFF_REASONS, { error: `reason must be one of ${SHIFT_HANDOFF_REASONS.join(", ")}` })
      .describe("context_limit, task_boundary or shift_end"),
    document: z.string({ error: "document is required" }).describe("The shift document, Markdown, at most 256 KiB"),
    successor_tmux_target: z.string().optional().describe("tmux pane where the successor runs; its first prompt is typed there"),
    successor_name: z.string().optional().describe("Successor's display name; defaults to yours"),
    successor_session_id: z.string().optional().describe("Successor's session UUID when already known"),
    repo_path: repoPathArg,
  }),
  output: z.object({
    record: mcpHandoffRecordSchema,
    agent: mcpAgentSchema.describe("You, now ended"),
    successor: mcpAgentSchema,
    redactions: mcpRedactionsSchema,
  }),
  lead: (result) => redactionLead(result.redactions),
  argumentNames: { "successor.tmuxTarget": "successor_tmux_target", "successor.name": "successor_name", "successor.sessionId": "successor_session_id" },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(args, context) {
    const { triggerHandoff } = await loadAgents();
    const handed = await triggerHandoff({
      agentId: args.agent,
      reason: args.reason,
      document: args.document,
      successor: { tmuxTarget: args.successor_tmux_target, name: args.successor_name, sessionId: args.successor_session_id },
      repoPath: repoPathOf(args.repo_path, context),
    });
    return {
      record: toMcpHandoffRecord(handed.record),
      agent: toMcpAgent(handed.agent),
      successor: toMcpAgent(handed.successor),
      redactions: toMcpRedactions(handed.redactions),
    };
  },
});
