import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, McpError, type GetPromptResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { extractHandoffId } from "../../handoffs/handoff-ref";
import { CLIENT_SIDES, type ClientSide } from "../../handoffs/schemas";
import { loadAgents, loadHandoffs } from "../domain";
import { threadMarkdown } from "../resources/thread-markdown";
import { answeringRequestErrors } from "../request-errors";
import type { ToolContext } from "../tool-kit";
import { currentCaller, defaultSideOf } from "../../caller";

/**
 * MCP prompts: ready-made first messages a client offers its user (Claude Code lists them as
 * /mcp__baton__pickup, /mcp__baton__handoff_to_code, /mcp__baton__end_shift). Registered by
 * the one server factory, so stdio and HTTP offer the same.
 */

const userMessage = (text: string, description: string): GetPromptResult => ({
  description,
  messages: [{ role: "user", content: { type: "text", text } }],
});

/** A prompt's failure as its JSON-RPC error (lib/mcp/request-errors.ts): an argument naming nothing is invalid params. */
function refusingBadInput<T>(work: () => Promise<T>, context: ToolContext, prompt: string): Promise<T> {
  return answeringRequestErrors(work, {
    notFound: (message) => new McpError(ErrorCode.InvalidParams, message),
    log: context.log,
    request: `prompt ${prompt}`,
    unexpected: `Baton could not build the ${prompt} prompt; check the Baton server's log`,
  });
}

const sideOf = (raw: string | undefined): ClientSide => {
  const value = raw?.trim().toLowerCase();
  if (!value) return defaultSideOf(currentCaller());
  const side = CLIENT_SIDES.find((candidate) => candidate === value);
  if (!side) throw new McpError(ErrorCode.InvalidParams, 'as_client must be "chat" or "code"');
  return side;
};

function nextSteps(side: ClientSide, id: string, completed: boolean): string {
  if (completed) return `This handoff is completed. If there is more to do, start a new one with create_handoff and say it continues ${id}.`;
  return [
    "What to do now, in this order:",
    `1. Read the new entries above first; they are what the other side wrote since ${side} last marked the thread read.`,
    `2. Answer every open question with add_to_handoff (id ${id}, type "decision", as_client "${side}").`,
    `3. Do the work the tasks and decisions ask for; report as you go with add_to_handoff (type "progress"), and "done" when finished.`,
    `4. Once you have taken the new entries in, call mark_handoff_read (id ${id}, as_client "${side}").`,
    "If the thread says it was cut to fit, call get_handoff with the after_seq / before_seq it names before acting on it.",
  ].join("\n");
}

const HANDOFF_CHECKLIST = [
  "- **Goal**: what the code side must achieve, in one or two sentences.",
  "- **Decisions and why**: each choice made in this conversation, with the reason and the alternatives rejected.",
  "- **Constraints**: versions, APIs, performance or security limits, what must not change.",
  "- **Files**: the files, modules or endpoints involved, as far as known.",
  "- **Open questions**: what is still undecided; the code side asks these back with a question entry.",
  "- **Definition of done**: how to tell the work is finished (tests, behaviour, a command that passes).",
].join("\n");

export function registerPrompts(server: McpServer, context: ToolContext): void {
  server.registerPrompt(
    "pickup",
    {
      title: "Pick up a handoff",
      description: "Read a Baton handoff (new entries first) and continue the work it describes: answer questions, report progress, mark it read.",
      argsSchema: {
        id: z.string().describe("The handoff ID (hof_…), pasted however it was copied: in quotes, backticks or as a dashboard link"),
        as_client: z.string().optional().describe('Which side you are: "chat" or "code" (default: this server\'s identity)'),
      },
    },
    async ({ id, as_client }) =>
      refusingBadInput(
        async () => {
          const side = sideOf(as_client);
          const handoffId = extractHandoffId(id);
          if (!handoffId) {
            throw new McpError(ErrorCode.InvalidParams, `${JSON.stringify(id.slice(0, 60))} holds no handoff ID: paste one such as hof_V1StGXR8Z5jdHi6BmyT2a`);
          }
          const { getHandoff } = await loadHandoffs();
          const thread = await getHandoff({ id: handoffId, asClient: side, repoPath: context.workingFolder });
          const text = [
            `You are picking up the Baton handoff ${handoffId} as the ${side} side. Here is the thread as you should read it.`,
            "",
            threadMarkdown(thread, side),
            "",
            nextSteps(side, handoffId, thread.handoff.status === "completed"),
          ].join("\n");
          return userMessage(text, `Handoff ${handoffId}: ${thread.newCount} new of ${thread.entryCount} entries`);
        },
        context,
        "pickup",
      ),
  );

  server.registerPrompt(
    "handoff_to_code",
    {
      title: "Hand this conversation to Claude Code",
      description: "Turn the decisions of this conversation into a Baton handoff (create_handoff) that Claude Code can implement.",
      argsSchema: {
        title: z.string().optional().describe("A title for the handoff, if you have one in mind"),
        project: z.string().optional().describe("A project tag such as hlg (lowercase letters, digits, - and _)"),
      },
    },
    async ({ title, project }) => {
      const call = [`as_client "chat"`, title?.trim() ? `title ${JSON.stringify(title.trim())}` : "a short title naming the work", project?.trim() ? `project "${project.trim()}"` : null]
        .filter(Boolean)
        .join(", ");
      const text = [
        "Hand the work we decided on in this conversation to Claude Code through Baton.",
        "",
        "Review the conversation and write one context entry that a coding agent can implement without asking you again. A good handoff contains:",
        HANDOFF_CHECKLIST,
        "",
        `Then call create_handoff with ${call}, and the entry as content (Markdown, under 64 KiB).`,
        "Show me the handoff ID it returns: I will paste it into Claude Code (which can run /mcp__baton__pickup with it).",
        "If something on the checklist was never decided, say so in Open questions rather than guessing.",
      ].join("\n");
      return userMessage(text, "Create a handoff for Claude Code from this conversation");
    },
  );

  server.registerPrompt(
    "end_shift",
    {
      title: "End your shift",
      description: "Write your shift document from Baton's template and hand your work to a successor agent (trigger_handoff).",
      argsSchema: {
        agent: z.string().describe("Your agent: its integer id, session UUID or first 8 hex digits of the session id"),
        successor_tmux_target: z.string().optional().describe("tmux pane where your successor runs (session:window.pane), if any"),
      },
    },
    async ({ agent, successor_tmux_target }) =>
      refusingBadInput(
        async () => {
          const { getAgent, SHIFT_DOCUMENT_TEMPLATE } = await loadAgents();
          const you = await getAgent({ agentId: agent });
          if (you.status !== "active") throw new McpError(ErrorCode.InvalidParams, `agent ${you.shortId} has already ended: there is no shift to end`);
          const target = successor_tmux_target?.trim();
          const text = [
            `You are agent ${you.shortId} (${you.personaSlug}${you.project ? `, project ${you.project}` : ""}). Your shift ends now: hand your work to a successor.`,
            "",
            "1. Write your shift document by filling in this template. Write for a fresh agent that knows nothing of this session: what the goal is, what is done, what is half-done (with the exact state), the next steps in order, what blocks you, and the key files with why they matter. Leave no section that matters empty.",
            "",
            "```markdown",
            SHIFT_DOCUMENT_TEMPLATE.trimEnd(),
            "```",
            "",
            `2. Call trigger_handoff with agent ${you.id}, reason "shift_end", document (the filled-in template)` +
              (target ? `, successor_tmux_target "${target}".` : (you.tmuxTarget ? `, and successor_tmux_target if your successor runs in a tmux pane (yours is ${you.tmuxTarget}).` : ", and successor_tmux_target if your successor runs in a tmux pane.")),
            "3. Report the successor's short id and the delivery state trigger_handoff returns, then stop working.",
          ].join("\n");
          return userMessage(text, `End agent ${you.shortId}'s shift`);
        },
        context,
        "end_shift",
      ),
  );
}
