import { operationInput } from "../../validation";
import { loadAgents } from "../domain";
import { agentRefArg, contextPercentArg } from "../agent-inputs";
import { mcpAgentSchema, toMcpAgent } from "../agent-views";
import { defineTool } from "../tool-kit";

export const reportContextTool = defineTool({
  name: "report_context",
  title: "Report context use",
  description:
    "Report how full your context window is (0–100 %), every so often during long work. The operator's dashboard " +
    "shows it; when it nears the limit, write a shift document and call trigger_handoff with reason context_limit.",
  input: operationInput({ agent: agentRefArg, percent: contextPercentArg }),
  argumentNames: { contextPercent: "percent" },
  output: mcpAgentSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args) {
    const { updateAgent } = await loadAgents();
    return toMcpAgent(await updateAgent({ agentId: args.agent, contextPercent: args.percent }));
  },
});
