/**
 * lib/mcp: the MCP door (this file is its main file). One server definition: every tool
 * (registered through tool-kit.ts with zod input and output schemas), the prompts (prompts/) and
 * the resources (resources/), served two ways: over stdio by `baton mcp` (serve-stdio.ts, started
 * fast by launch.mjs from the server lib/prebuilt/ prebuilds) and over Streamable HTTP at /api/mcp
 * (handle-http.ts for stateless requests, http-sessions.ts for sessions and their notifications).
 * Tools are thin: they translate arguments and answers and call the domain (lib/handoffs,
 * lib/agents), loaded on first call (domain.ts); errors become tool errors with the domain's
 * message (tool-errors.ts).
 */
import "server-only";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { registerPrompts } from "./prompts";
import { registerResources } from "./resources";
import { advertiseSingleTypes } from "./single-type-schemas";
import { checkOutputsSynchronously, findOnlyRegisteredNames, refuseMalformedParams, registerTool, type ToolContext } from "./tool-kit";
import { addToHandoffTool } from "./tools/add-to-handoff";
import { closeHandoffTool } from "./tools/close-handoff";
import { createHandoffTool } from "./tools/create-handoff";
import { getContinuityChainTool } from "./tools/get-continuity-chain";
import { getHandoffTool } from "./tools/get-handoff";
import { getShiftDocumentTool } from "./tools/get-shift-document";
import { markHandoffReadTool } from "./tools/mark-handoff-read";
import { registerAgentTool } from "./tools/register-agent";
import { reportContextTool } from "./tools/report-context";
import { triggerHandoffTool } from "./tools/trigger-handoff";

export const SERVER_INFO = { name: "baton", version: "0.1.0" } as const;

const INSTRUCTIONS =
  "Baton keeps handoffs: threads shared between Claude Chat (decisions) and Claude Code (implementation). " +
  "One handoff ID is one working session across both clients; the user pastes the ID from one client into the other. " +
  "Typical flow: chat create_handoff → code get_handoff + mark_handoff_read → either add_to_handoff (question, " +
  "decision, progress, done …) → the other side get_handoff → … → close_handoff when the work is done. " +
  "Long-running agents: register_agent at the start, report_context now and then, trigger_handoff to pass the " +
  "work to a successor, get_continuity_chain to find predecessors' shift documents; a successor reads the " +
  "document it was handed with get_shift_document (or the resource baton://agents/<id>/handoff). Each handoff is " +
  "also the resource baton://handoffs/<id>; the prompts pickup, handoff_to_code and end_shift start the usual flows.";

export type CreateMcpServerOptions = {
  log?: (line: string) => void;
  /** Offer resources/subscribe: only where notifications can reach the client unasked (stdio, an HTTP session's GET stream). */
  subscriptions?: boolean;
  /** The client's working folder, for a server that runs beside its client (stdio); git state is read there. */
  workingFolder?: string;
};

/** A Baton MCP server with every tool, prompt and resource registered; both transports (stdio, HTTP) use it. */
export function createMcpServer(options: CreateMcpServerOptions = {}): McpServer {
  const context: ToolContext = {
    log: options.log ?? ((line) => process.stderr.write(`baton mcp: ${line}\n`)),
    workingFolder: options.workingFolder,
  };
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS, capabilities: { tools: {} } });
  checkOutputsSynchronously(server);
  findOnlyRegisteredNames(server);
  registerTool(server, createHandoffTool, context);
  registerTool(server, getHandoffTool, context);
  registerTool(server, addToHandoffTool, context);
  registerTool(server, markHandoffReadTool, context);
  registerTool(server, closeHandoffTool, context);
  registerTool(server, registerAgentTool, context);
  registerTool(server, reportContextTool, context);
  registerTool(server, triggerHandoffTool, context);
  registerTool(server, getContinuityChainTool, context);
  registerTool(server, getShiftDocumentTool, context);
  advertiseSingleTypes(server);
  registerPrompts(server, context);
  registerResources(server, context, { subscriptions: options.subscriptions ?? false });
  refuseMalformedParams(server);
  return server;
}
