import { z } from "zod";
import { operationInput } from "../../validation";
import { loadAgents } from "../domain";
import { contextPercentArg } from "../agent-inputs";
import { mcpAgentSchema, toMcpAgent } from "../agent-views";
import { defineTool } from "../tool-kit";

export const registerAgentTool = defineTool({
  name: "register_agent",
  title: "Register agent",
  description:
    "Register yourself as a long-running agent at the start of a work session, so Baton can track your context use " +
    "and hand your work to a successor when you run out of context, finish a task or end a shift. Returns your agent " +
    "record; keep its id or short_id for report_context, trigger_handoff and get_continuity_chain.",
  input: operationInput({
    persona: z.string({ error: "persona is required" }).describe("Your role as a slug, e.g. developer or reviewer-2"),
    name: z.string().optional().describe("Display name; defaults to the persona"),
    project: z.string().optional().describe("Project tag (lowercase letters, digits, _ or -)"),
    session_id: z.string().optional().describe("Your own session UUID if you have one (Claude Code's); a new one is made otherwise"),
    tmux_target: z.string().optional().describe("tmux pane you run in (session:window.pane), so a successor's prompt can be typed there"),
    context_percent: contextPercentArg.optional(),
  }),
  output: mcpAgentSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args) {
    const { registerAgent } = await loadAgents();
    return toMcpAgent(
      await registerAgent({
        personaSlug: args.persona,
        name: args.name,
        project: args.project,
        sessionId: args.session_id,
        tmuxTarget: args.tmux_target,
        contextPercent: args.context_percent,
      }),
    );
  },
});
